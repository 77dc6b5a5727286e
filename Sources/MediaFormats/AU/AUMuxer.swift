public import MediaCore

/// Writes interleaved PCM samples as a NeXT/Sun audio file (`.au`, `.snd`), as `sox` and FFmpeg do.
///
/// ```swift
/// let muxer = CheckedSink(AUMuxer(output: try FileOutput(path: "tone.au")))
/// var tone = try ToneGenerator(length: .duration(MediaTime(value: 5, timescale: 1)))
/// while let sample = try tone.next() { try muxer.write(sample) }
/// try muxer.finish()
/// ```
///
/// The header is written when the first sample arrives, from its format, and is the one FFmpeg's AU
/// muxer writes with no metadata (`ffmpeg -map_metadata -1 -f au`), byte for byte: the 24-byte `.snd`
/// header (big-endian: header size 32, data size, encoding, rate, channels) and an empty 8-byte
/// annotation. Samples are stored big-endian, as AU requires, by `encoding`:
/// - ``Encoding/linear`` (the default): u8 as encoding 2 (signed 8-bit: each byte XOR 0x80), s16 as 3,
///   s24 as 4, s32 as 5, f32 as 6, f64 as 7.
/// - ``Encoding/muLaw`` (1) and ``Encoding/aLaw`` (27): s16 compressed to 8-bit G.711 codes, the codes
///   FFmpeg's `pcm_mulaw` and `pcm_alaw` encoders make. Other sample types throw
///   ``/MediaCore/MediaError/Code/formatMismatch``.
///
/// While streaming, the data size is `0xFFFFFFFF` ("unknown"), which readers read to the end of the
/// file. ``finish()`` patches it on a seekable output when the file is under 2 GiB, as FFmpeg does; on a
/// non-seekable one (a pipe), and for larger files, it stays unknown. AU needs no padding.
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
public final class AUMuxer: MediaSink {
    private let output: any MediaOutput
    private let encoding: Encoding
    private var layout: Layout?
    /// The format of the first sample; every later one must match it.
    public private(set) var format: AudioFormat?
    /// The number of frames written so far.
    public private(set) var framesWritten: Int64 = 0
    /// The number of audio data bytes written so far, as stored (after conversion).
    public private(set) var dataBytesWritten: Int64 = 0
    /// The stored (converted) bytes of the sample being written, reused from one sample to the next.
    private var scratch: [UInt8] = []

    /// How samples are stored.
    public enum Encoding: Sendable, Hashable {
        /// Linear PCM of the samples' type, big-endian (encodings 2 to 7).
        case linear
        /// G.711 µ-law from s16 (encoding 1), the telephone `.au`.
        case muLaw
        /// G.711 A-law from s16 (encoding 27).
        case aLaw
    }

    /// Where the header starts and how samples are stored.
    private struct Layout {
        var start: Int64
        var stored: StoredPCM
    }

    /// The header size FFmpeg writes without metadata: 24 bytes and an 8-byte empty annotation.
    static let headerSize = 32
    /// The data size that means "unknown".
    static let unknownSize: UInt32 = 0xFFFF_FFFF

    /// A muxer writing to `output` with `encoding`. Nothing is written until the first sample.
    public init(output: any MediaOutput, encoding: Encoding = .linear) {
        self.output = output
        self.encoding = encoding
    }

    /// Appends the frames of `sample`, writing the header first if this is the first sample.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/formatMismatch`` for a sample that is not interleaved PCM of a
    ///   supported type (s16 for G.711), or whose format differs from the first sample's;
    ///   ``/MediaCore/MediaError/Code/unsupportedFormat`` for a rate or channel count AU cannot express;
    ///   ``/MediaCore/MediaError/Code/invalidData`` when the sample's byte count is not its frame count
    ///   times the frame size; and the output's errors.
    public func write(_ sample: MediaSample) throws(MediaError) {
        let (audio, type) = try InterleavedPCMInput.check(sample, stage: name, established: format)
        if layout == nil {
            try writeHeader(for: audio, type: type, sample: sample)
            format = audio
        }
        guard let layout else { return }
        dataBytesWritten += Int64(try layout.stored.write(sample, to: output, scratch: &scratch))
        framesWritten += Int64(sample.frameCount)
    }

    /// Completes the file and closes the output: patches the data size when the output is seekable and
    /// the file is under 2 GiB. Without any sample, only closes the output.
    ///
    /// - Throws: the output's errors (the output is closed even then).
    public func finish() throws(MediaError) {
        let fileSize = Int64(Self.headerSize) + dataBytesWritten
        try output.close(afterWriting: { () throws(MediaError) in
            guard let layout, output.isSeekable, fileSize < Int64(Int32.max) else { return }
            let size = UInt32(dataBytesWritten)
            try output.overwrite((0..<4).map { UInt8(truncatingIfNeeded: size >> (24 - 8 * $0)) }, at: layout.start + 8)
        })
    }

    /// The AU encoding number and the stored form for `type` under `encoding`.
    private func storage(for type: PCMSampleType, sample: MediaSample) throws(MediaError) -> (
        code: UInt32, stored: StoredPCM
    ) {
        switch (encoding, type) {
        case (.linear, .u8): return (2, .signed8)
        case (.linear, .s16): return (3, .bigEndian(width: 2))
        case (.linear, .s24): return (4, .bigEndian(width: 3))
        case (.linear, .s32): return (5, .bigEndian(width: 4))
        case (.linear, .f32): return (6, .bigEndian(width: 4))
        case (.linear, .f64): return (7, .bigEndian(width: 8))
        case (.muLaw, .s16): return (1, .g711(.muLaw))
        case (.aLaw, .s16): return (27, .g711(.aLaw))
        case (.muLaw, _), (.aLaw, _):
            throw MediaError.formatMismatch(
                stage: name, expected: "interleaved s16 for G.711 \(encoding == .muLaw ? "µ-law" : "A-law")",
                actual: sample.format)
        }
    }

    private func writeHeader(for audio: AudioFormat, type: PCMSampleType, sample: MediaSample) throws(MediaError) {
        let (code, stored) = try storage(for: type, sample: sample)
        guard let rate = UInt32(exactly: audio.sampleRate), rate >= 1,
            let channels = UInt32(exactly: audio.channelCount), channels >= 1
        else {
            throw MediaError(
                .unsupportedFormat, "AU cannot hold \(count: audio.channelCount, "channel") at \(audio.sampleRate) Hz")
        }
        let start = output.position
        var w = ByteWriter(capacity: Self.headerSize)
        w.write(Array(".snd".utf8))  // magic
        w.writeUInt32BE(UInt32(Self.headerSize))  // hdr_size
        w.writeUInt32BE(Self.unknownSize)  // data_size, patched in finish()
        w.writeUInt32BE(code)  // encoding
        w.writeUInt32BE(rate)  // sample_rate
        w.writeUInt32BE(channels)  // channels
        w.write([UInt8](repeating: 0, count: Self.headerSize - 24))  // annotation: empty, NUL-terminated
        try output.write(w.bytes)
        layout = Layout(start: start, stored: stored)
    }
}

@available(*, unavailable)
extension AUMuxer: Sendable {}
