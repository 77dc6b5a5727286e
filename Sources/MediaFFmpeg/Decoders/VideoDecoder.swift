public import Logging
internal import CMediaFFmpeg
import MediaBitstream
public import MediaCore

/// Decodes HEVC, AV1, VP9 and the other compressed video a demuxer hands out to raw frames:
/// VideoToolbox's `VTDecompressionSession` for any codec, or GStreamer's `decodebin` video branch.
///
/// ```swift
/// let demuxer = try ContainerDemuxer(path: "movie.mkv")                 // VP9, AV1 or HEVC
/// var graph = MediaGraph()
/// let frames = graph.addBranch(source: try demuxer.source(stream: 0), stages: [VideoDecoder()])
/// graph.addSink(Y4MMuxer(output: try FileOutput(path: "movie.y4m")), input: frames)
/// try graph.runSynchronously()
/// ```
///
/// - Input: samples of a ``/MediaCore/VideoCodec/other(fourCC:)`` format the codec table knows (`'hvc1'`/`'hev1'`,
///   `'av01'`, `'vp09'`, `'vp08'`, `'mp4v'`, `'mp2v'`, ...), with the configuration record (`hvcC`,
///   `av1C`, ...) in ``/MediaCore/VideoFormat/codecConfiguration``: what ``ContainerDemuxer`` and
///   ``HEVCEncoder``, ``AV1Encoder``, ``VP9Encoder`` give. H.264 has its own decoder, ``H264Decoder``
///   (threading by groups of pictures, in-band parameter sets); it is refused here with
///   ``/MediaCore/MediaError/Code/formatMismatch`` saying so, as is any other format.
/// - Output: one raw frame per sample in the decoder's pixel format (`yuv420p`, `yuv420p10le`, ...),
///   in presentation order, timed as ``H264Decoder`` times its frames (the input's presentation times,
///   each frame the duration of its access unit). The samples borrow FFmpeg's frames, which are reused
///   once every sample is released.
///
/// Decoded by libavcodec's decoder for the codec (`hevc`, `vp9`), except AV1, which libdav1d decodes
/// when the build has it (as the `ffmpeg` CLI prefers it), with FFmpeg's automatic frame threads.
/// Frames decoded with errors concealed are logged as warnings (`framesConcealed`).
public final class VideoDecoder: MediaStage, DiagnosticReporting {
    /// Where warnings go; `nil` by default.
    public var logger: Logger?
    /// The libavcodec decoder's name once the first sample has opened it (`hevc`, `libdav1d`, `vp9`).
    public private(set) var decoderName: String?

    private var core: Core?
    private var output: VideoFrameOutput?
    private var index: Int64 = 0

    /// A decoder; the first sample's format chooses the codec.
    public init() { FFmpeg.quietLogging() }

    /// Whether this stage decodes samples of `format`: compressed video of a codec the codec table knows
    /// (not H.264, which ``H264Decoder`` decodes) whose decoder this FFmpeg build has.
    public static func canDecode(_ format: VideoFormat) -> Bool {
        guard case .other(let code) = format.codec, let row = CodecTable.row(code: code, audio: false) else {
            return false
        }
        return avcodec_find_decoder(row.id) != nil
    }

    /// Decodes one sample; emits the frames that are ready.
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        guard case .video(let input) = sample.format, case .other(let code) = input.codec,
            let row = CodecTable.row(code: code, audio: false)
        else {
            var expected = "compressed video of a codec the codec table knows (HEVC, AV1, VP9, ...)"
            if case .video(let format) = sample.format, format.codec == .h264 {
                expected += "; H.264 goes to H264Decoder"
            }
            throw MediaError.formatMismatch(stage: name, expected: expected, actual: sample.format)
        }
        defer { index += 1 }
        let output = self.output ?? VideoFrameOutput(first: input, timing: sample.timing)
        if core == nil {
            let opened = try Core(row: row, configuration: input.codecConfiguration, timescale: output.timescale)
            core = opened
            decoderName = opened.decoderName
            self.output = output
        }
        guard let core else { return }
        defer { reportDamage(output) }
        let unit = output.accept(sample, format: input)
        try core.send(unit)
        while let slot = try core.receive() { try output.emit(slot, releasedBy: unit.index, into: emit) }
    }

    /// Drains the decoder: emits every frame it still holds.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        guard let core, let output else { return }
        defer { reportDamage(output) }
        try core.sendEnd()
        while let slot = try core.receive() { try output.emit(slot, releasedBy: index - 1, into: emit) }
        output.finish()
    }

    /// Logs a warning for each sample that released damaged frames since the last report.
    private func reportDamage(_ output: VideoFrameOutput) {
        for (accessUnit, count) in output.takeDamageReports() {
            MediaDiagnostic(
                .warning,
                "\(decoderName ?? "video") sample \(accessUnit) decoded to \(count) \(count == 1 ? "frame" : "frames") with errors concealed.",
                metadata: [
                    DiagnosticKey.stage: name, DiagnosticKey.code: "framesConcealed",
                    DiagnosticKey.sampleIndex: String(accessUnit), DiagnosticKey.count: String(count)
                ]
            ).log(to: logger)
        }
    }
}

@available(*, unavailable) extension VideoDecoder: Sendable {}

extension VideoDecoder {
    /// One open libavcodec video decoder: samples in as packets (their bytes as they are, the
    /// configuration record as extradata), frames out into a ``FramePool``.
    fileprivate final class Core {
        let decoderName: String
        private let codec: CodecContext
        private let packet: Packet
        private let packetBuffers = PacketBufferPool()
        private let frames = FramePool()

        init(row: CodecTable.Row, configuration: [UInt8], timescale: Int32) throws(MediaError) {
            let preferred = row.id == AV_CODEC_ID_AV1 ? avcodec_find_decoder_by_name("libdav1d") : nil
            guard let decoder = preferred ?? avcodec_find_decoder(row.id) else {
                throw MediaError(
                    .unavailable, "this FFmpeg build has no \(row.name) decoder", ffmpegCall: "avcodec_find_decoder")
            }
            decoderName = String(cString: decoder.pointee.name)
            codec = try CodecContext(codec: decoder)
            packet = try Packet()
            let ctx = codec.raw
            ctx.pointee.pkt_timebase = AVRational(num: 1, den: timescale)
            ctx.pointee.thread_count = 0
            try codec.setExtradata(configuration)
            try check(avcodec_open2(ctx, decoder, nil), calling: "avcodec_open2", .unsupportedFormat)
        }

        func send(_ unit: H264AccessUnit) throws(MediaError) {
            let count = unit.sample.byteCount
            guard count < Int(Int32.max) - Int(AV_INPUT_BUFFER_PADDING_SIZE) else {
                throw MediaError(.invalidData, "video sample of \(count) bytes is too large for FFmpeg")
            }
            let output = try packetBuffers.attach(to: packet, count: count)
            unit.sample.withUnsafeBytes { raw in
                if let base = raw.baseAddress {
                    UnsafeMutableRawPointer(output).copyMemory(from: base, byteCount: count)
                }
            }
            defer { av_packet_unref(packet.raw) }
            // A stream timed by decode time (presentation = decode: no reordering) hands no presentation
            // time on; libdav1d gives its frames no decode time, so the packet carries the decode time as
            // its presentation time, which it is.
            packet.raw.pointee.pts = unit.pts == mp_nopts_value() ? unit.dts : unit.pts
            packet.raw.pointee.dts = unit.dts
            if let duration = unit.duration { packet.raw.pointee.duration = duration }
            if unit.isKeyframe { packet.raw.pointee.flags |= AV_PKT_FLAG_KEY }
            try codec.sendPacket(packet)
        }

        func sendEnd() throws(MediaError) { try codec.sendPacket(nil) }

        func receive() throws(MediaError) -> FrameSlot? { try frames.receive(from: codec) }
    }
}
