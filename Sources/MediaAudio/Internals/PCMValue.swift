/// Reads one PCM sample value as a fraction of full scale: 0 dBFS is the integer type's magnitude
/// (128 for u8, 32 768 for s16, 2²³ for s24, 2³¹ for s32) and 1.0 for floats, so the most negative
/// integer reads exactly −1.0. Non-finite floats (NaN, ±infinity) read 0, so that one bad value cannot
/// stick to a reading.
///
/// One conforming type per ``/MediaCore/PCMSampleType``, so that ``accumulate(_:bytes:offset:stride:count:sum:peak:)``
/// is specialised per type and its loop has no switch and no call per value.
protocol PCMValue {
    /// The value at `offset` in `bytes` (little-endian). The caller has checked the bounds.
    static func load(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Double
}

enum U8Value: PCMValue {
    static func load(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Double {
        Double(Int(bytes[offset]) - 128) * (1.0 / 128)
    }
}

enum S16Value: PCMValue {
    static func load(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Double {
        Double(Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int16.self))) * (1.0 / 32_768)
    }
}

enum S24Value: PCMValue {
    static func load(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Double {
        let raw = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
        return Double(Int32(bitPattern: raw << 8) >> 8) * (1.0 / 8_388_608)  // sign-extended from bit 23
    }
}

enum S32Value: PCMValue {
    static func load(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Double {
        Double(Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self))) * (1.0 / 2_147_483_648)
    }
}

enum F32Value: PCMValue {
    static func load(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Double {
        let value = Float(
            bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        return value.isFinite ? Double(value) : 0
    }
}

enum F64Value: PCMValue {
    static func load(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Double {
        let value = Double(
            bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
        return value.isFinite ? value : 0
    }
}

/// Adds the squares of `count` values of type `Value`, `stride` bytes apart from `offset`, to `sum` in
/// order (so that the total does not depend on how the frames were split into calls), and raises
/// `peak` to their largest magnitude. The caller has checked that the bytes hold them.
@inline(__always)
func accumulate<Value: PCMValue>(
    _: Value.Type, bytes: UnsafeRawBufferPointer, offset: Int, stride: Int, count: Int,
    sum: inout Double, peak: inout Double
) {
    var total = sum
    var highest = peak
    var position = offset
    for _ in 0..<count {
        let value = Value.load(bytes, at: position)
        total += value * value
        highest = max(highest, abs(value))
        position += stride
    }
    sum = total
    peak = highest
}

extension PCMSampleType {
    /// Calls ``accumulate(_:bytes:offset:stride:count:sum:peak:)`` for values of this type.
    func accumulate(
        bytes: UnsafeRawBufferPointer, offset: Int, stride: Int, count: Int, sum: inout Double, peak: inout Double
    ) {
        switch self {
        case .u8:
            MediaAudio.accumulate(
                U8Value.self, bytes: bytes, offset: offset, stride: stride, count: count, sum: &sum, peak: &peak)
        case .s16:
            MediaAudio.accumulate(
                S16Value.self, bytes: bytes, offset: offset, stride: stride, count: count, sum: &sum, peak: &peak)
        case .s24:
            MediaAudio.accumulate(
                S24Value.self, bytes: bytes, offset: offset, stride: stride, count: count, sum: &sum, peak: &peak)
        case .s32:
            MediaAudio.accumulate(
                S32Value.self, bytes: bytes, offset: offset, stride: stride, count: count, sum: &sum, peak: &peak)
        case .f32:
            MediaAudio.accumulate(
                F32Value.self, bytes: bytes, offset: offset, stride: stride, count: count, sum: &sum, peak: &peak)
        case .f64:
            MediaAudio.accumulate(
                F64Value.self, bytes: bytes, offset: offset, stride: stride, count: count, sum: &sum, peak: &peak)
        }
    }
}
