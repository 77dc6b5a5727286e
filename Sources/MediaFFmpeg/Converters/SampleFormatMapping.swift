internal import CMediaFFmpeg
import MediaCore

extension PCMFormat {
    /// FFmpeg's sample format for this layout. Packed 24-bit has none: it travels as 32-bit
    /// (see ``PCM24``), so `.s24` maps to `AV_SAMPLE_FMT_S32(P)`.
    var avSampleFormat: AVSampleFormat {
        switch (sampleType, isInterleaved) {
        case (.u8, true): return AV_SAMPLE_FMT_U8
        case (.u8, false): return AV_SAMPLE_FMT_U8P
        case (.s16, true): return AV_SAMPLE_FMT_S16
        case (.s16, false): return AV_SAMPLE_FMT_S16P
        case (.s24, true), (.s32, true): return AV_SAMPLE_FMT_S32
        case (.s24, false), (.s32, false): return AV_SAMPLE_FMT_S32P
        case (.f32, true): return AV_SAMPLE_FMT_FLT
        case (.f32, false): return AV_SAMPLE_FMT_FLTP
        case (.f64, true): return AV_SAMPLE_FMT_DBL
        case (.f64, false): return AV_SAMPLE_FMT_DBLP
        }
    }

    /// The layout FFmpeg sees for this one: `.s24` becomes `.s32` with the same interleaving.
    var ffmpegCompatible: PCMFormat {
        sampleType == .s24 ? PCMFormat(.s32, interleaved: isInterleaved) : self
    }

    /// The PCM layout of an FFmpeg sample format, if it has one here.
    init?(_ format: AVSampleFormat) {
        switch format {
        case AV_SAMPLE_FMT_U8: self.init(.u8)
        case AV_SAMPLE_FMT_U8P: self.init(.u8, interleaved: false)
        case AV_SAMPLE_FMT_S16: self.init(.s16)
        case AV_SAMPLE_FMT_S16P: self.init(.s16, interleaved: false)
        case AV_SAMPLE_FMT_S32: self.init(.s32)
        case AV_SAMPLE_FMT_S32P: self.init(.s32, interleaved: false)
        case AV_SAMPLE_FMT_FLT: self.init(.f32)
        case AV_SAMPLE_FMT_FLTP: self.init(.f32, interleaved: false)
        case AV_SAMPLE_FMT_DBL: self.init(.f64)
        case AV_SAMPLE_FMT_DBLP: self.init(.f64, interleaved: false)
        default: return nil
        }
    }
}

extension ChannelLayout {
    /// This layout as an `AVChannelLayout`: from the mask when positions are known, otherwise
    /// FFmpeg's default layout for the channel count. The caller must `av_channel_layout_uninit` it.
    var avChannelLayout: AVChannelLayout {
        var layout = AVChannelLayout()
        if isSpecified, av_channel_layout_from_mask(&layout, mask) == 0 { return layout }
        av_channel_layout_default(&layout, Int32(channelCount))
        return layout
    }
}

/// Packed 24-bit PCM, which FFmpeg has no sample format for, to and from 32-bit (exact both ways for
/// the top 24 bits).
enum PCM24 {
    /// Each 3-byte little-endian value becomes a 4-byte one shifted left by 8.
    static func expand(_ packed: UnsafeRawBufferPointer) -> [UInt8] {
        let count = packed.count / 3
        return [UInt8](unsafeUninitializedCapacity: count * 4) { out, initialized in
            for i in 0..<count {
                out[4 * i] = 0
                out[4 * i + 1] = packed[3 * i]
                out[4 * i + 2] = packed[3 * i + 1]
                out[4 * i + 3] = packed[3 * i + 2]
            }
            initialized = count * 4
        }
    }

    /// Each 4-byte value keeps its top 3 bytes.
    static func pack(_ wide: UnsafeRawBufferPointer) -> [UInt8] {
        let count = wide.count / 4
        return [UInt8](unsafeUninitializedCapacity: count * 3) { out, initialized in
            for i in 0..<count {
                out[3 * i] = wide[4 * i + 1]
                out[3 * i + 1] = wide[4 * i + 2]
                out[3 * i + 2] = wide[4 * i + 3]
            }
            initialized = count * 3
        }
    }
}

/// Calls `body` with one read-only pointer per plane of `planes` (at most 8), keeping them valid for
/// the call.
func withPlanePointers<R>(
    _ planes: [[UInt8]],
    _ body: (UnsafeMutablePointer<UnsafePointer<UInt8>?>) throws -> R
) rethrows -> R {
    // On the stack: no heap allocation per call.
    try withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: max(8, planes.count)) { buffer in
        buffer.initialize(repeating: nil)
        let pointers = buffer.baseAddress!
        func nest(_ index: Int) throws -> R {
            if index == planes.count { return try body(pointers) }
            return try planes[index].withUnsafeBufferPointer { buffer in
                pointers[index] = buffer.baseAddress
                return try nest(index + 1)
            }
        }
        return try nest(0)
    }
}

/// ``withPlanePointers(_:_:)`` over a sample's own planes, owned or borrowed, without copying them and
/// without a heap allocation (the pointer array is on the stack).
func withPlanePointers<R, E: Error>(
    of sample: MediaSample,
    _ body: (UnsafeMutablePointer<UnsafePointer<UInt8>?>) throws(E) -> R
) throws(E) -> R {
    let planeCount = sample.planeCount
    let result = withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: max(8, planeCount)) {
        pointers -> Result<R, E> in
        pointers.initialize(repeating: nil)
        func nest(_ index: Int) throws(E) -> R {
            if index == planeCount { return try body(pointers.baseAddress!) }
            return try sample.withUnsafeBytes(plane: index) { (bytes) throws(E) in
                pointers[index] = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
                return try nest(index + 1)
            }
        }
        return Result { () throws(E) in try nest(0) }
    }
    return try result.get()
}
