import ArgumentParser
import ExampleSupport
import Foundation
import MediaDisplay
import MediaPipeline
import Synchronization

/// `live-streamer`: a camera, a screen, the test pattern or a .y4m, and a tone, a .wav or a PulseAudio input → H.264 + AAC
/// → RTMP, SRT, MPEG-TS over UDP/TCP or HLS, in real time, with a bounded live queue, reconnection and
/// per-second stats; optionally a local recording of the same encode.
struct LiveStreamer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live-streamer",
        abstract: "Stream video and audio as H.264 and AAC to a server (RTMP, SRT, UDP, TCP) or to HLS, in real time.",
        discussion: """
            --to takes rtmp://, rtmps://, srt://, udp:// or tcp:// URLs (FLV over RTMP, MPEG-TS otherwise; \
            options ride in the query: srt://host:port?latency=200000&passphrase=…&mode=listener), or a \
            playlist path ending in .m3u8: HLS segments are written beside it. Video comes from a camera \
            (--camera), a screen (--screen), the test pattern (--pattern) or a .y4m (--video), audio from \
            a tone (--tone HZ), a .wav (--audio) or a PulseAudio input (--capture [DEVICE]); files and \
            generators are paced at real time; --preview shows the video in a window. The queue \
            in front of the network holds at most --max-latency seconds: past it, video is dropped a GOP \
            at a time (never audio), and the adaptive bit rate lowers the encoder's rate while the queue \
            is deep. A lost connection is retried --reconnect times with backoff (0.5 s doubling to 8 s); \
            the stream resumes at a keyframe with its timestamps continuing. --record writes the same \
            encode to a file, untouched by network trouble. Ctrl-C ends the stream cleanly (exit 130). \
            While it streams, one command per line on standard input: record start PATH, record stop [PATH], \
            output add URL, output remove URL, stats, quit.

            Examples:
              live-streamer --to rtmp://127.0.0.1/live/key --pattern --tone 440
              live-streamer --to srt://127.0.0.1:9000 --video in.y4m --audio in.wav
              live-streamer --to rtmp://host/live/key --pattern --capture --record a.mp4
              live-streamer --to out/live.m3u8 --pattern --tone 440 --duration 30
            """,
        version: "0.2.0")

    @Option(
        help: ArgumentHelp(
            "Where to stream: rtmp://, rtmps://, srt://, udp://, tcp:// URL, or an HLS playlist path ending in .m3u8.",
            valueName: "URL"))
    var to: String

    @Option(
        help: ArgumentHelp(
            "Also write the encode to this file (.mp4 .mov .ts .flv .mkv; the container from the extension).",
            valueName: "FILE"))
    var record: String?

    @OptionGroup var sources: AVSourceOptions

    @OptionGroup var videoCapture: VideoCaptureOptions

    @Option(
        help: ArgumentHelp(
            "Capture audio from a PulseAudio input: its name, or the default with no name.", valueName: "DEVICE"))
    var capture: String?

    @Option(
        help: ArgumentHelp(
            "The H.264 average bit rate in bits per second (the adaptive bit rate's ceiling).", valueName: "BPS"))
    var bitrate = 2_500_000

    @Flag(
        name: .customLong("no-adaptive-bitrate"),
        help:
            "Keep the H.264 bit rate at --bitrate (default: lowered while the queue is deep, raised again when it drains)."
    )
    var noAdaptiveBitrate = false

    @Option(
        name: .customLong("audio-bitrate"),
        help: ArgumentHelp("The AAC or Opus bit rate in bits per second.", valueName: "BPS")
    )
    var audioBitrate = 128_000

    @Option(
        help: ArgumentHelp(
            "The most frames between keyframes (default: 2 seconds of frames, or --hls-time's when shorter).",
            valueName: "N"))
    var keyint: Int?

    @Option(help: "The x264 or x265 preset (ultrafast ... veryslow); SVT-AV1's 0 ... 13; libvpx's cpu-used 0 ... 8.")
    var preset = "veryfast"

    @Option(
        name: .customLong("video-codec"),
        help: ArgumentHelp(
            "The video codec: h264, hevc (SRT/UDP/TCP in MPEG-TS, HLS in fMP4, a file), av1 or vp9 (a .mkv/.webm/.mp4 file); only H.264 adapts its bit rate (FFmpeg 5.1's other encoders cannot change it while they run)."
        ))
    var videoCodec = VideoCodecChoice.h264

    @Option(
        name: .customLong("audio-codec"),
        help: "The audio codec: aac, or opus (48 kHz; SRT/UDP/TCP in MPEG-TS, a .mkv/.webm/.mp4 file).")
    var audioCodec = AudioCodecChoice.aac

    @Option(
        help: ArgumentHelp(
            "Stop after this many seconds (default: until Ctrl-C, or the end of the files).", valueName: "S"))
    var duration: Double?

    @Option(
        name: .customLong("max-latency"),
        help: ArgumentHelp("The most media the queue in front of the network may hold, in seconds.", valueName: "S"))
    var maxLatency = 2.0

    @Option(
        help: ArgumentHelp(
            "Reconnection attempts per outage, with backoff (0: stop at the first network error).", valueName: "N"))
    var reconnect = 5

    @Option(
        name: .customLong("hls-segment-type"),
        help: "HLS segments: ts (MPEG-TS) or fmp4 (fragmented MP4 with an init segment).")
    var hlsSegmentType: HLSSegmentType = .ts

    @Option(
        name: .customLong("hls-time"), help: "HLS target segment duration in seconds (segments are cut at keyframes).")
    var hlsTime = 2.0

    @Option(
        name: .customLong("hls-list-size"),
        help: "Segments in the live HLS playlist, older ones deleted; 0 writes a VOD playlist listing every segment.")
    var hlsListSize = 6

    enum HLSSegmentType: String, ExpressibleByArgument, CaseIterable {
        case ts, fmp4
    }

    @Option(
        name: .customLong("protocol-option"),
        help: ArgumentHelp(
            "An option for libavformat's protocol, as ffmpeg's -KEY VALUE (send_buffer_size=65536, rw_timeout=5000000, latency=200000…); repeatable.",
            valueName: "KEY=VALUE"))
    var protocolOptions: [String] = []

    @Flag(
        name: .customLong("stats-json"),
        help:
            "Print one JSON object per second on standard output: sentBytes, sentFrames, droppedFrames, reconnects, queueSeconds, and more."
    )
    var statsJSON = false

    @Option(
        help: ArgumentHelp(
            "Text drawn on the video, bottom left (move it with the 'overlay text X Y' command).", valueName: "TEXT"))
    var overlayText: String?

    @Option(help: ArgumentHelp("A PNG or JPEG drawn on the video, top right, its alpha kept.", valueName: "PATH"))
    var overlayImage: String?

    @Option(
        help: ArgumentHelp(
            "A second video shown picture-in-picture, bottom right: a .y4m or a video file.", valueName: "FILE|DEVICE"))
    var pip: String?

    @Option(
        help: ArgumentHelp(
            "A second audio input mixed in: a PulseAudio source name, or a .wav file.", valueName: "DEVICE|FILE"))
    var mixInput: String?

    @Flag(name: .shortAndLong, help: "Print no connection events and no summary.")
    var quiet = false

    /// `--verbose`: also the library's diagnostics (reconnections, concealed frames, dropped samples),
    /// one line each; without it, the connection events above are what is printed.
    @OptionGroup var logging: VerboseOption

    /// The default device of `--capture` given without a name (see `CaptureOption.normalizing`).
    static let defaultDevice = CaptureOption.defaultDevice
    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func validate() throws {
        guard sources.hasVideo || videoCapture.device != nil || sources.hasAudioFileOrTone || capture != nil else {
            throw ValidationError(
                "give video (--pattern, --video, --camera or --screen) or audio (--tone, --audio or --capture), or both"
            )
        }
        if [sources.pattern, sources.video != nil, videoCapture.device != nil].filter({ $0 }).count > 1 {
            throw ValidationError("give one of --pattern, --video, --camera and --screen")
        }
        if videoCapture.preview && !(sources.hasVideo || videoCapture.device != nil) {
            throw ValidationError("--preview shows the video: give --pattern, --video, --camera or --screen")
        }
        if sources.hasAudioFileOrTone && capture != nil {
            throw ValidationError("give one of --tone, --audio and --capture")
        }
        if let duration, !(duration > 0 && duration <= 86_400) {
            throw ValidationError("--duration must be between 0 and 86400 seconds")
        }
        if !(10_000...200_000_000).contains(bitrate) { throw ValidationError("--bitrate must be 10000 to 200000000") }
        if !(8_000...2_000_000).contains(audioBitrate) {
            throw ValidationError("--audio-bitrate must be 8000 to 2000000")
        }
        if let keyint, !(1...10_000).contains(keyint) { throw ValidationError("--keyint must be 1 to 10000") }
        if !(maxLatency > 0 && maxLatency <= 600) {
            throw ValidationError("--max-latency must be between 0 and 600 seconds")
        }
        if !(0...1_000).contains(reconnect) { throw ValidationError("--reconnect must be 0 to 1000") }
        if !(hlsTime >= 0.1 && hlsTime <= 3600) {
            throw ValidationError("--hls-time must be between 0.1 and 3600 seconds")
        }
        if !(0...100_000).contains(hlsListSize) { throw ValidationError("--hls-list-size must be 0 to 100000") }
        for option in protocolOptions where !option.contains("=") || option.hasPrefix("=") {
            throw ValidationError("--protocol-option '\(option)' is not KEY=VALUE")
        }
        if !Destination.isHLS(to) {
            do { _ = try StreamingURL(to) } catch { throw ValidationError(error.message) }
        }
        try validateFanIn()
        if let record,
            ContainerFormat(fileExtension: String(record.split(separator: ".").last ?? "")) == nil
                || !record.contains(".")
        {
            throw ValidationError(
                "cannot tell the container of --record '\(record)' from its extension (.mp4 .mov .ts .flv .mkv)")
        }
    }

    func run() throws {
        let clock = MediaClock()  // one clock: capture, pattern and tone start together; latency is measured on it
        let limit = duration.map { MediaTime(value: Int64(($0 * 1000).rounded()), timescale: 1000) }
        let hasVideo = sources.hasVideo || videoCapture.device != nil
        // The window shows the frames on their way to the encoder, each at its time on the clock; closing
        // it ends the stream as Ctrl-C does.
        let preview =
            videoCapture.preview
            ? try VideoPreviewSink(
                title: "live-streamer → \(to)", pacing: .clock(clock), whenClosed: .stop(Interrupt.signal))
            : nil
        defer { preview?.close() }
        // Shared between the encoder and the live sink: the policy's target bit rate, and the keyframe a
        // reconnection asks for.
        let adapts = hasVideo && !noAdaptiveBitrate && videoCodec == VideoCodecChoice.h264
        let control = adapts ? try BitRateControl(bitRate: bitrate) : nil
        let keyframes = KeyframeRequest()
        // The connection events are printed by EventPrinter; --verbose adds the library's own diagnostics.
        let diagnostics = ExampleLogHandler.logger(for: "live-streamer", verbose: true, quiet: false)
        var graph = MediaGraph(logger: logging.verbose && !quiet ? diagnostics : nil)
        var tracks: [MediaGraph.BranchID] = []
        var controls = FanInControls()
        // A camera's or screen's frame counts, for the warning about the frames it missed.
        var captureCounts: VideoCaptureSource.Counts?
        if let branch = try videoBranch(
            &graph, clock: clock, limit: limit, control: control, keyframes: keyframes, preview: preview,
            captureCounts: &captureCounts, controls: &controls)
        {
            tracks.append(branch)
        }
        if let branch = try audioBranch(&graph, clock: clock, limit: limit, controls: &controls) {
            tracks.append(branch)
        }

        let events = EventPrinter(enabled: !quiet)
        let output = try Destination.sink(
            to, reconnect: reconnect, protocolOptions: protocolOptionPairs, hls: hlsOptions, keyframes: keyframes,
            onEvent: events.print)
        let live = try LiveStreamSink(
            output, clock: clock,
            maxQueueDuration: MediaTime(value: Int64((maxLatency * 1000).rounded()), timescale: 1000),
            adaptiveBitRate: control.map { AdaptiveBitRate(control: $0) })
        let stats = live.statsSource
        graph.addSink(live, tracks: tracks)
        if let record { graph.addSink(try ContainerMuxer(path: record), tracks: tracks) }

        let printer = statsJSON ? StatsPrinter.start(stats) : nil
        // `quit` ends the stream as its end would; Ctrl-C as well, but reported as an interruption (130).
        let quit = StopSignal()
        let ended = Mutex<Result<MediaGraph.Progress, any Error>?>(nil)
        let run = graph.start(stop: quit) { result in ended.withLock { $0 = result } }
        Commands.start(
            Commands.Context(
                run: run, tracks: tracks, clock: clock, keyframes: keyframes, maxQueueDuration: live.maxQueueDuration,
                reconnect: reconnect, protocolOptions: protocolOptionPairs, hls: hlsOptions, quiet: quiet, quit: quit,
                mainStats: stats, fanIn: controls))
        while !run.hasEnded {
            if Interrupt.wasRequested { quit.request() }
            Thread.sleep(forTimeInterval: 0.05)
        }
        run.wait()
        let outcome = ended.withLock { $0 } ?? .failure(MediaError.stageFinished("live-streamer"))
        printer?.finish()
        let final = stats.current
        if !quiet {
            printError("live-streamer: \(Self.summary(final))" + (Interrupt.wasRequested ? " (interrupted)" : ""))
            if let shown = preview?.statistics {
                printError(
                    "live-streamer: preview: \(count: Int(shown.shownFrames), "frame") shown, \(shown.lateFrames) late"
                        + (shown.closedByUser ? " (its window was closed: the stream ended there)" : ""))
            }
            if let device = videoCapture.device, let counts = captureCounts,
                let warning = VideoCaptureOptions.dropWarning(
                    "live-streamer", device: device, dropped: counts.droppedFrames)
            {
                printError(warning)
            }
        }
        let progress = try outcome.get()
        // What the readers and decoders worked around, summed up in one line after the warnings themselves.
        let inputs = [sources.video, sources.audio].compactMap { $0 }.joined(separator: ", ")
        let warning = InputWarnings.line(
            example: "live-streamer", path: inputs, warningCount: progress.warningCount, warnings: progress.warnings)
        if let warning, !quiet { printError(warning) }
    }

    /// The `--hls-…` options.
    private var hlsOptions: HLSOptions {
        HLSOptions(
            segmentType: hlsSegmentType == .fmp4 ? .fragmentedMP4 : .mpegTS,
            targetSegmentDuration: MediaTime(value: Int64((hlsTime * 1000).rounded()), timescale: 1000),
            playlist: hlsListSize == 0 ? .vod : .live(windowSize: hlsListSize))
    }

    /// `--protocol-option` values as pairs.
    private var protocolOptionPairs: [String: String] {
        var pairs: [String: String] = [:]
        for option in protocolOptions {
            let parts = option.split(separator: "=", maxSplits: 1)
            pairs[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return pairs
    }

    private func videoBranch(
        _ graph: inout MediaGraph, clock: MediaClock, limit: MediaTime?, control: BitRateControl?,
        keyframes: KeyframeRequest, preview: VideoPreviewSink?, captureCounts: inout VideoCaptureSource.Counts?,
        controls: inout FanInControls
    ) throws -> MediaGraph.BranchID? {
        guard let input = try videoInput(clock: clock, limit: limit, counts: &captureCounts) else { return nil }
        let rate = input.rate
        var stages: [any MediaStage] = input.needsConversion ? [try VideoConverter(to: .yuv420p)] : []
        if let preview { stages.append(MediaTap("preview") { preview.submit($0) }) }
        var settings = H264Encoder.Settings()
        settings.realTime = true
        settings.preset = preset
        settings.expectedFrameRate = rate
        settings.averageBitRate = bitrate
        settings.dataRateLimit = (maxBitRate: bitrate, bufferSize: bitrate)  // 1 s of VBV: what servers expect
        let seconds = Double(rate.numerator) / Double(max(1, rate.denominator))
        // A keyframe every 2 s (what YouTube and Twitch ask for), or every HLS segment when shorter:
        // segments are cut at keyframes.
        let gopSeconds = Destination.isHLS(to) ? min(2, hlsTime) : 2
        settings.maxKeyFrameInterval = keyint ?? max(1, Int((gopSeconds * seconds).rounded()))
        let encoder: VideoEncoder
        if videoCodec == .h264 {
            encoder = try H264Encoder(settings: settings, bitRateControl: control)
        } else {
            if settings.preset == "veryfast", videoCodec != .hevc { settings.preset = nil }  // x264's name only
            encoder = try videoCodec.encoder(settings: settings)
        }
        encoder.keyframeRequest = keyframes
        if hasVideoFanIn {
            // The main video, the picture-in-picture, the image and the text on one canvas, live on the clock.
            let compositor = try compositor(
                main: input.live ? input.source : RealTimeSource(input.source, clock: clock), rate: rate,
                captured: input.captured, clock: clock, limit: limit, controls: &controls)
            // The compositor converts its inputs itself: only the preview's tap stays before the encoder.
            return graph.addBranch(
                "video", source: compositor, stages: stages.filter { !($0 is VideoConverter) } + [encoder])
        }
        stages.append(encoder)
        return graph.addBranch(
            "video", source: input.live ? input.source : RealTimeSource(input.source, clock: clock), stages: stages)
    }

    /// The video input: a camera or a screen (live already, stamped on `clock`, cut at `limit`), or the
    /// pattern or a .y4m (paced at real time by the caller); `nil` without one.
    private func videoInput(
        clock: MediaClock, limit: MediaTime?, counts: inout VideoCaptureSource.Counts?
    ) throws
        -> sending (
            source: any MediaSource, needsConversion: Bool, rate: FrameRate, live: Bool,
            captured: (width: Int, height: Int)?
        )?
    {
        if let device = videoCapture.device {
            let rate = FrameRate(Int32(sources.fps))
            let capture = try VideoCaptureSource(
                device,
                configuration: .init(width: sources.size?.width, height: sources.size?.height, frameRate: rate),
                clock: clock)
            let size = (capture.format.width, capture.format.height)
            counts = capture.counts
            return (limit.map { TimeLimit(capture, limit: $0) } ?? capture, false, rate, true, size)
        }
        guard
            let input = try sources.videoSource(patternLength: limit.map { .duration($0) } ?? .unlimited, limit: limit)
        else { return nil }
        return (input.source, input.needsConversion, input.rate, false, nil)
    }

    private func audioBranch(
        _ graph: inout MediaGraph, clock: MediaClock, limit: MediaTime?, controls: inout FanInControls
    ) throws -> MediaGraph.BranchID? {
        var source: any MediaSource
        if let file = try sources.audioSource(
            toneLength: limit.map { .duration($0) } ?? .unlimited, limit: limit, framesPerSample: 480)
        {
            source = RealTimeSource(file, clock: clock)  // 10-ms tone samples: a microphone's pace
        } else if let capture {
            let device = capture == Self.defaultDevice ? nil : capture
            source = try AudioCaptureSource(
                device: device, sampleType: .f32, sampleRate: 48_000, channels: 2, clock: clock)
            if let limit { source = TimeLimit(source, limit: limit) }
        } else {
            return nil
        }
        let encoder: any MediaStage
        switch audioCodec {
        case .aac: encoder = try AACEncoder(bitRate: audioBitrate)
        case .opus:
            var opus = OpusEncoder.Settings()
            opus.bitRate = audioBitrate
            encoder = try OpusEncoder(settings: opus)
        }
        if let mixInput {
            // The main audio and --mix-input in one live mix on the clock.
            let mixed = try mixer(main: source, with: mixInput, clock: clock, limit: limit, controls: &controls)
            return graph.addBranch("audio", source: mixed, stages: [encoder])
        }
        return graph.addBranch("audio", source: source, stages: [encoder])
    }

    /// The summary line: what was sent, dropped and how long it waited.
    static func summary(_ stats: LiveStreamSink.Stats) -> String {
        var parts = [
            "sent \(stats.sentVideoFrames) video and \(count: stats.sentAudioFrames, "audio frame"), \(count: stats.sentBytes ?? 0, "byte")"
        ]
        parts.append("dropped \(count: stats.droppedFrames, "video frame") (\(count: stats.droppedGOPs, "GOP"))")
        if stats.reconnects > 0 || stats.droppedWhileReconnecting > 0 {
            parts.append(
                "\(count: stats.reconnects, "reconnect"), \(count: stats.droppedWhileReconnecting, "frame") lost while reconnecting"
            )
        }
        if let p50 = stats.latencyP50, let p99 = stats.latencyP99 {
            parts.append("latency p50 \(formatDecimal(p50 * 1000, 1)) ms, p99 \(formatDecimal(p99 * 1000, 1)) ms")
        }
        parts.append("queue at most \(formatDecimal(stats.maxQueueSeconds, 2)) s")
        if let target = stats.targetBitRate { parts.append("video bit rate \(target / 1000) kb/s at the end") }
        return parts.joined(separator: "; ")
    }
}
