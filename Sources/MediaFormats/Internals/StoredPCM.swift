/// How a muxer turns MediaPipeline's PCM (little-endian, u8 unsigned) into the bytes its file stores,
/// one sample's bytes at a time.
enum StoredPCM: Sendable, Equatable {
    /// Written as given: little-endian (AIFC `sowt`).
    case asIs
    /// Unsigned 8-bit to signed 8-bit (each byte XOR 0x80), what AIFF and AU store.
    case signed8
    /// Each `width`-byte value byte-reversed: little-endian to big-endian.
    case bigEndian(width: Int)
    /// 16-bit linear to 8-bit G.711 codes.
    case g711(G711.Law)

    /// The stored bytes of `data`, interleaved PCM of whole frames.
    func encode(_ data: [UInt8]) -> [UInt8] {
        switch self {
        case .asIs:
            return data
        case .signed8:
            var bytes = data
            for i in bytes.indices { bytes[i] ^= 0x80 }
            return bytes
        case .bigEndian(let width):
            var bytes = data
            reverseByteOrder(of: &bytes, width: width)
            return bytes
        case .g711(let law):
            return G711.encode(s16LE: data, law: law)
        }
    }

    /// Stored bytes per input sample value of `bytesPerSample` bytes.
    func storedBytes(perSampleOf bytesPerSample: Int) -> Int {
        if case .g711 = self { return 1 }
        return bytesPerSample
    }
}
