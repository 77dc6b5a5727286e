import MediaCore

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

    /// Calls `body` with the stored bytes of `data`, interleaved PCM of whole frames: `data` itself when
    /// it is stored as given, else its conversion in `scratch`, which keeps its capacity from one call to
    /// the next (so a muxer that keeps it allocates nothing per sample).
    func withStoredBytes<E: Error>(
        of data: UnsafeRawBufferPointer, scratch: inout [UInt8], _ body: (UnsafeRawBufferPointer) throws(E) -> Void
    ) throws(E) {
        switch self {
        case .asIs:
            return try body(data)
        case .signed8:
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: data)
            for i in scratch.indices { scratch[i] ^= 0x80 }
        case .bigEndian(let width):
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: data)
            reverseByteOrder(of: &scratch, width: width)
        case .g711(let law):
            G711.encode(s16LE: data, law: law, into: &scratch)
        }
        try scratch.withUnsafeBytes { bytes in Result { () throws(E) in try body(bytes) } }.get()
    }

    /// Writes the stored bytes of `sample` (interleaved PCM of whole frames) to `output` and returns their
    /// count; `approve` sees the count first and may refuse it (a file's size limit) by throwing, in which
    /// case nothing is written.
    func write(
        _ sample: MediaSample, to output: any MediaOutput, scratch: inout [UInt8],
        approve: (Int) throws(MediaError) -> Void = { _ in }
    ) throws(MediaError) -> Int {
        var count = 0
        try sample.withUnsafeBytes { (data) throws(MediaError) in
            try withStoredBytes(of: data, scratch: &scratch) { (stored) throws(MediaError) in
                try approve(stored.count)
                try output.write(stored)
                count = stored.count
            }
        }
        return count
    }

    /// Stored bytes per input sample value of `bytesPerSample` bytes.
    func storedBytes(perSampleOf bytesPerSample: Int) -> Int {
        if case .g711 = self { return 1 }
        return bytesPerSample
    }
}
