public import MediaCore

/// Writes AAC packets as an ADTS stream (`.aac`): a 7-byte header before each packet, as FFmpeg's ADTS
/// muxer (`-f adts`) writes it.
///
/// Give it raw AAC access units with the stream's AudioSpecificConfig as the format's magic cookie (what
/// an AAC encoder emits):
///
/// ```swift
/// let muxer = CheckedSink(ADTSMuxer(output: try FileOutput(path: "out.aac")))
/// for packet in packets { try muxer.write(packet) }
/// try muxer.finish()
/// ```
///
/// Each header is the one FFmpeg's `adts_write_frame_header` writes: MPEG-4 ID, layer 0, no CRC, profile
/// = object type − 1, the sampling frequency index and channel configuration of the cookie, all flags
/// 0, the frame length, buffer fullness 0x7FF and one raw data block. So packets from FFmpeg's AAC
/// encoder give the same bytes as `ffmpeg -c:a aac -f adts`.
///
/// The muxer refuses what ADTS cannot carry and writes nothing for that packet: a format that is not
/// AAC (``/MediaCore/MediaError/Code/formatMismatch``), an object type above 4 or a channel configuration outside
/// 1 to 7 or a sample rate without a sampling frequency index (``/MediaCore/MediaError/Code/unsupportedFormat``), a
/// frame longer than 8191 bytes (``/MediaCore/MediaError/Code/invalidArgument``). After a refusal, ``finish()``
/// still flushes and closes the output, whose bytes stay a valid ADTS stream.
///
/// The driver keeps the life cycle (no write after a refusal or after ``finish()``, `finish` once) and
/// stamps the errors with the stage's name and the packet's index; to call the muxer by hand, wrap it
/// in a ``/MediaCore/CheckedSink``, which does the same.
///
/// The format may change between packets; the muxer re-derives the header when it does. In steady state
/// it allocates nothing: the header buffer is reused and only its length field is rewritten.
///
/// The muxer is a class because it owns its output (a file descriptor, for a ``/MediaCore/FileOutput``):
/// copies of a value would share the output but not the muxer's state, so one copy could finish and
/// close the file while the other kept writing. It is not thread-safe; hand it to one task at a time.
public final class ADTSMuxer: MediaSink {
    private let output: any MediaOutput
    /// The format of the last packet, and its header with the length field to be rewritten per packet.
    private var cachedFormat: AudioFormat?
    private var header: [UInt8] = []

    /// Packets written so far.
    public private(set) var packetCount: Int64 = 0

    /// A muxer writing to `output`.
    public init(output: any MediaOutput) {
        self.output = output
    }

    /// The name used in errors.
    public var name: String { "ADTSMuxer" }

    /// Writes the header and bytes of one AAC packet.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/formatMismatch``, ``/MediaCore/MediaError/Code/unsupportedFormat`` or
    ///   ``/MediaCore/MediaError/Code/invalidArgument`` for a packet ADTS cannot carry (nothing is written); the
    ///   output's errors.
    public func write(_ sample: MediaSample) throws(MediaError) {
        try prepareHeader(for: sample)
        try output.write(header)
        var failure: MediaError?
        sample.withUnsafeBytes { raw in
            do throws(MediaError) { try output.write(raw) } catch { failure = error }
        }
        if let failure { throw failure }
        packetCount += 1
    }

    /// Flushes and closes the output; also after ``write(_:)`` failed.
    ///
    /// - Throws: the output's errors.
    public func finish() throws(MediaError) {
        try output.flush()
        try output.close()
    }

    /// Makes `header` the header for `sample`: derived again when the format changed, otherwise only the
    /// frame length is rewritten.
    private func prepareHeader(for sample: MediaSample) throws(MediaError) {
        guard case .audio(let format) = sample.format, format.codec == .aac else {
            throw MediaError.formatMismatch(stage: name, expected: "AAC audio", actual: sample.format)
        }
        let frameLength = sample.data.count + 7
        guard frameLength <= ADTSHeader.maximumFrameLength else {
            throw MediaError(
                .invalidArgument,
                "ADTS frame of \(count: frameLength, "byte") exceeds the \(ADTSHeader.maximumFrameLength)-byte "
                    + "aac_frame_length limit")
        }
        if format != cachedFormat {
            guard !format.magicCookie.isEmpty else {
                throw MediaError(
                    .invalidArgument,
                    "AAC format \(format) has no AudioSpecificConfig magic cookie to derive the ADTS header from")
            }
            let config = try format.audioSpecificConfig()  // once per format: the header is cached
            header = try ADTSHeader(audioSpecificConfig: config, payloadLength: 0).bytes
            cachedFormat = format
        }
        ADTSHeader.patchFrameLength(frameLength, in: &header)
    }
}

@available(*, unavailable)
extension ADTSMuxer: Sendable {}
