public import MediaCore

/// Writes interleaved PCM samples as an AIFF or AIFF-C file, like `AVAudioFile` writing `.aiff`/`.aifc`.
///
/// ```swift
/// let muxer = CheckedSink(AIFFMuxer(output: try FileOutput(path: "tone.aif")))
/// var tone = try ToneGenerator(length: .duration(MediaTime(value: 5, timescale: 1)))
/// while let sample = try tone.next() { try muxer.write(sample) }
/// try muxer.finish()
/// ```
///
/// The header is written when the first sample arrives, from its format, and is the one FFmpeg's AIFF
/// muxer writes with no metadata (`ffmpeg -map_metadata -1 -f aiff`), byte for byte: `FORM`, then for
/// AIFF-C `FVER`, then `CHAN` for more than two channels with known positions, `COMM` (the sample rate as
/// an 80-bit extended float) and `SSND` with offset and block size 0. The encoding is chosen by
/// `encoding` and the sample type:
/// - ``Encoding/bigEndian`` (the default): s16, s24 and s32 as plain AIFF (big-endian), u8 as AIFF's
///   signed 8-bit (each byte XOR 0x80), f32 and f64 as AIFF-C `fl32` and `fl64` (big-endian).
/// - ``Encoding/littleEndian``: s16 as AIFF-C `sowt`, the samples as they are. u8 is written as AIFF's
///   signed 8-bit as above (one byte has no order); s24, s32, f32 and f64 are refused with
///   ``/MediaCore/MediaError/Code/unsupportedFormat``: FFmpeg reads `sowt` only as 16-bit and AIFF-C has
///   no little-endian float.
/// - ``Encoding/muLaw`` and ``Encoding/aLaw``: s16 compressed to 8-bit G.711 codes, AIFF-C `ulaw` and
///   `alaw`, the codes FFmpeg's `pcm_mulaw` and `pcm_alaw` encoders make. Other sample types throw
///   ``/MediaCore/MediaError/Code/formatMismatch``.
///
/// ``finish()`` pads odd-sized sound data to an even length and patches the `FORM` and `SSND` sizes and
/// the frame count. AIFF has no "size unknown": an output that cannot seek (a pipe) is refused at the
/// first sample with ``/MediaCore/MediaError/Code/unsupportedFormat`` (FFmpeg writes zero sizes there, a
/// file FFmpeg itself then refuses to read). Sound data that would take the `FORM` size past its 32 bits
/// (4 GiB) is refused the same way, leaving a valid file of what came before.
///
/// Every sample must have the first one's format. Planar PCM, compressed audio and a format change throw
/// ``/MediaCore/MediaError/Code/formatMismatch``. After ``write(_:)`` throws, ``finish()`` still completes
/// the file with what was written. When no sample arrived, ``finish()`` closes the output without
/// writing anything.
///
/// The driver keeps the life cycle (no write after an error or after ``finish()``, `finish` once) and
/// stamps the errors with the stage's name and the sample's index; to call the muxer by hand, wrap it
/// in a ``/MediaCore/CheckedSink``, which does the same.
///
/// The muxer is a class because it drives one output. It is not thread-safe; hand it to one task at a time.
public final class AIFFMuxer: MediaSink {
    private let output: any MediaOutput
    private let encoding: Encoding
    private var layout: Layout?
    /// The format of the first sample; every later one must match it.
    public private(set) var format: AudioFormat?
    /// The number of frames written so far.
    public private(set) var framesWritten: Int64 = 0
    /// The number of sound data bytes written so far, as stored (after conversion).
    public private(set) var dataBytesWritten: Int64 = 0
    /// The stored (converted) bytes of the sample being written, reused from one sample to the next.
    private var scratch: [UInt8] = []

    /// How samples are stored.
    public enum Encoding: Sendable, Hashable {
        /// Big-endian: plain AIFF for integers, AIFF-C `fl32`/`fl64` for floats.
        case bigEndian
        /// AIFF-C `sowt`: 16-bit little-endian integers, as macOS writes `.aifc` by default.
        case littleEndian
        /// AIFF-C `ulaw`: G.711 µ-law from s16.
        case muLaw
        /// AIFF-C `alaw`: G.711 A-law from s16.
        case aLaw
    }

    /// Where the header's fields are, and how samples are stored.
    private struct Layout {
        var start: Int64
        var headerSize: Int64
        var frameCountOffset: Int64
        var soundSizeOffset: Int64
        var stored: StoredPCM
    }

    /// A muxer writing to `output` with `encoding`. Nothing is written until the first sample.
    public init(output: any MediaOutput, encoding: Encoding = .bigEndian) {
        self.output = output
        self.encoding = encoding
    }

    /// Appends the frames of `sample`, writing the header first if this is the first sample.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/formatMismatch`` for a sample that is not interleaved PCM of a
    ///   supported type (s16 for G.711), or whose format differs from the first sample's;
    ///   ``/MediaCore/MediaError/Code/unsupportedFormat`` for an output that cannot seek, a type the
    ///   encoding cannot store, a rate or channel count AIFF cannot express, or sound data past 4 GiB;
    ///   ``/MediaCore/MediaError/Code/invalidData`` when the sample's byte count is not its frame count
    ///   times the frame size; and the output's errors.
    public func write(_ sample: MediaSample) throws(MediaError) {
        let (audio, type) = try InterleavedPCMInput.check(sample, stage: name, established: format)
        if layout == nil {
            try writeHeader(for: audio, type: type, sample: sample)
            format = audio
        }
        guard let layout else { return }
        // A local first: the check reads dataBytesWritten, which `+=` would hold for writing meanwhile.
        let written = try layout.stored.write(sample, to: output, scratch: &scratch) {
            (count) throws(MediaError) in
            let end = dataBytesWritten + Int64(count)
            // FORM size = header after its first 8 bytes + data + pad byte; 32 bits.
            guard layout.headerSize - 8 + end + (end & 1) <= Int64(UInt32.max) else {
                throw MediaError(
                    .unsupportedFormat,
                    "\(name) cannot write past \(count: dataBytesWritten, "byte") of sound data: AIFF's 32-bit sizes stop at 4 GiB"
                )
            }
        }
        dataBytesWritten += Int64(written)
        framesWritten += Int64(sample.frameCount)
    }

    /// Completes the file and closes the output: pads odd-sized data and patches the `FORM` and `SSND`
    /// sizes and the `COMM` frame count. Without any sample, only closes the output.
    ///
    /// - Throws: the output's errors (the output is closed even then).
    public func finish() throws(MediaError) {
        try output.close(afterWriting: { () throws(MediaError) in
            if let layout { try patchSizes(layout) }
        })
    }

    /// Writes the sizes and frame count of the audio written so far into the header and flushes the
    /// output, so that if the process dies before ``finish()`` the file reads up to here (a recorder
    /// calls it twice a second). On an output that cannot seek it only flushes.
    public func checkpoint() throws(MediaError) {
        if let layout, output.isSeekable { try writeSizes(layout, pad: 0) }  // the pad byte comes at finish()
        try output.flush()
    }

    private func patchSizes(_ layout: Layout) throws(MediaError) {
        let pad = dataBytesWritten & 1
        if pad == 1 { try output.write([0]) }
        try writeSizes(layout, pad: pad)
    }

    /// Writes the `FORM` and `SSND` sizes and the `COMM` frame count for the audio written so far (and
    /// `pad` bytes after it).
    private func writeSizes(_ layout: Layout, pad: Int64) throws(MediaError) {
        let formSize = layout.headerSize - 8 + dataBytesWritten + pad
        try output.overwrite(Self.uint32BE(UInt32(truncatingIfNeeded: formSize)), at: layout.start + 4)  // FORM ckSize
        // numSampleFrames
        try output.overwrite(Self.uint32BE(UInt32(truncatingIfNeeded: framesWritten)), at: layout.frameCountOffset)
        try output.overwrite(
            Self.uint32BE(UInt32(truncatingIfNeeded: 8 + dataBytesWritten)), at: layout.soundSizeOffset)  // SSND ckSize
    }

    /// The AIFF-C compression type and the stored form for `type` under `encoding`, or `nil` compression
    /// type for plain AIFF.
    private func storage(for type: PCMSampleType, sample: MediaSample) throws(MediaError) -> (
        compression: String?, stored: StoredPCM
    ) {
        switch (encoding, type) {
        case (.bigEndian, .u8), (.littleEndian, .u8):
            return (nil, .signed8)
        case (.bigEndian, .s16), (.bigEndian, .s24), (.bigEndian, .s32):
            return (nil, .bigEndian(width: type.bytesPerSample))
        case (.bigEndian, .f32):
            return ("fl32", .bigEndian(width: 4))
        case (.bigEndian, .f64):
            return ("fl64", .bigEndian(width: 8))
        case (.littleEndian, .s16):
            return ("sowt", .asIs)
        case (.littleEndian, _):
            throw MediaError(
                .unsupportedFormat,
                "\(name) stores only 16-bit samples little-endian (AIFF-C 'sowt'), not \(type): use the big-endian encoding"
            )
        case (.muLaw, .s16):
            return ("ulaw", .g711(.muLaw))
        case (.aLaw, .s16):
            return ("alaw", .g711(.aLaw))
        case (.muLaw, _), (.aLaw, _):
            throw MediaError.formatMismatch(
                stage: name, expected: "interleaved s16 for G.711 \(encoding == .muLaw ? "µ-law" : "A-law")",
                actual: sample.format)
        }
    }

    private func writeHeader(for audio: AudioFormat, type: PCMSampleType, sample: MediaSample) throws(MediaError) {
        let (compression, stored) = try storage(for: type, sample: sample)
        guard output.isSeekable else {
            throw MediaError(
                .unsupportedFormat,
                "\(name) cannot write to an output that cannot seek: AIFF has no 'size unknown', its sizes are patched at the end"
            )
        }
        let channels = audio.channelCount
        let bits = stored.storedBytes(perSampleOf: type.bytesPerSample) * 8
        guard channels >= 1, channels <= Int(UInt16.max), audio.sampleRate >= 1 else {
            throw MediaError(
                .unsupportedFormat, "AIFF cannot hold \(count: channels, "channel") at \(audio.sampleRate) Hz")
        }
        let start = output.position
        var w = ByteWriter(capacity: 96)
        w.write(Array("FORM".utf8))
        w.writeUInt32BE(0)  // ckSize, patched in finish()
        w.write(Array((compression == nil ? "AIFF" : "AIFC").utf8))
        if compression != nil {
            w.write(Array("FVER".utf8))
            w.writeUInt32BE(4)
            w.writeUInt32BE(Self.aifcVersion1)  // timestamp
        }
        if let chan = AIFFChannelLayoutChunk.body(for: audio.channelLayout) {
            w.write(Array("CHAN".utf8))
            w.writeUInt32BE(UInt32(chan.count))
            w.write(chan)
        }
        w.write(Array("COMM".utf8))
        w.writeUInt32BE(compression == nil ? 18 : 24)
        w.writeUInt16BE(UInt16(channels))  // numChannels
        let frameCountOffset = start + Int64(w.bytes.count)
        w.writeUInt32BE(0)  // numSampleFrames, patched in finish()
        w.writeUInt16BE(UInt16(bits))  // sampleSize
        w.write(IEEEExtended.bytes(Double(audio.sampleRate)))  // sampleRate
        if let compression {
            w.write(Array(compression.utf8))  // compressionType
            w.write([0, 0])  // compressionName: empty pstring, padded to even
        }
        w.write(Array("SSND".utf8))
        let soundSizeOffset = start + Int64(w.bytes.count)
        w.writeUInt32BE(0)  // ckSize, patched in finish()
        w.writeUInt32BE(0)  // offset
        w.writeUInt32BE(0)  // blockSize
        try output.write(w.bytes)
        layout = Layout(
            start: start, headerSize: Int64(w.bytes.count), frameCountOffset: frameCountOffset,
            soundSizeOffset: soundSizeOffset, stored: stored)
    }

    /// AIFF-C Version 1's `FVER` timestamp (May 23, 1990, 2:40 pm).
    static let aifcVersion1: UInt32 = 0xA280_5140

    private static func uint32BE(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    }
}

@available(*, unavailable)
extension AIFFMuxer: Sendable {}
