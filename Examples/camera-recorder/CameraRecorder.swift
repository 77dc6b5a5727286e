import ArgumentParser
import ExampleSupport
import MediaDisplay
import MediaPipeline

/// `camera-recorder (--camera /dev/videoN | --screen DISPLAY) [--capture [DEVICE]] --output PATH`.
struct CameraRecorder: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "camera-recorder",
        abstract: "Record a camera or an X11 screen, and a PulseAudio input if asked, as H.264/AAC into a file.",
        discussion: """
            --camera captures a V4L2 camera (video-devices lists them and their formats); --screen an X11 \
            display (:0, or :0+X,Y for a region from X,Y with --size). --capture adds a PulseAudio input \
            (its name, or the default with no name), stamped on the same clock as the video, so they stay \
            in sync. The container is the output's extension (.mp4 .mov .mkv .ts .flv). It records until \
            --duration, Ctrl-C or the --preview window's closing; either way the file is complete. Prints one summary line on standard \
            error: frames, drops and the file's size.

            Examples:
              camera-recorder --screen :0 --fps 30 --duration 10 --output screen.mp4
              camera-recorder --camera /dev/video0 --size 1280x720 --camera-format mjpeg --capture --output cam.mkv
            """,
        version: "0.1.0")

    /// `--camera`, `--screen`, `--preview`.
    @OptionGroup var input: VideoCaptureOptions

    @Option(help: ArgumentHelp("Frames per second to capture.", valueName: "N"))
    var fps = 30

    @Option(help: ArgumentHelp("The capture size (default: the camera's default, the whole screen).", valueName: "WxH"))
    var size: VideoSize?

    @Option(
        name: .customLong("camera-format"),
        help: ArgumentHelp("The camera's format (yuyv422, nv12, mjpeg, h264; default the driver's).", valueName: "F"))
    var cameraFormat: String?

    @Flag(name: .customLong("no-cursor"), help: "Leave the cursor out of a screen recording.")
    var noCursor = false

    @Option(
        help: ArgumentHelp(
            "Also record a PulseAudio input: its name, or the default with no name.", valueName: "DEVICE"))
    var capture: String?

    @Option(help: ArgumentHelp("Stop after this many seconds (default: at Ctrl-C).", valueName: "S"))
    var duration: Double?

    @Option(help: ArgumentHelp("The H.264 average bit rate in bits per second.", valueName: "BPS"))
    var bitrate = 4_000_000

    @Option(help: "The x264 preset (ultrafast ... veryslow).")
    var preset = "veryfast"

    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write (.mp4 .mov .mkv .ts .flv).", valueName: "PATH"))
    var output: String

    @OptionGroup var logging: VerboseOption

    @Flag(name: .shortAndLong, help: "Print no summary and no warnings (errors only).")
    var quiet = false

    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func validate() throws {
        if input.device == nil { throw ValidationError("give one of --camera and --screen") }
        if !(1...240).contains(fps) { throw ValidationError("--fps must be 1 to 240") }
        if let duration, !(duration > 0 && duration <= 86_400) {
            throw ValidationError("--duration must be between 0 and 86400 seconds")
        }
        if !(10_000...200_000_000).contains(bitrate) { throw ValidationError("--bitrate must be 10000 to 200000000") }
        if cameraFormat != nil && input.camera == nil { throw ValidationError("--camera-format is for --camera") }
        guard let ext = output.split(separator: ".").last, output.contains("."),
            let container = ContainerFormat(fileExtension: String(ext)), container != .m4a
        else {
            throw ValidationError(
                "cannot tell the container of '\(output)' from its extension (.mp4 .mov .mkv .ts .flv)")
        }
    }

    func run() throws {
        let clock = MediaClock()  // one clock: the video and the audio are stamped on it, so they start together
        let limit = duration.map { MediaTime(value: Int64(($0 * 1000).rounded()), timescale: 1000) }
        var graph = MediaGraph(
            logger: ExampleLogHandler.logger(for: "camera-recorder", verbose: logging.verbose, quiet: quiet))
        let rate = FrameRate(Int32(fps))
        guard let device = input.device else { return }  // validate() has refused that
        let video = try VideoCaptureSource(
            device,
            configuration: .init(
                width: size?.width, height: size?.height, frameRate: rate, cameraFormat: cameraFormat,
                showsCursor: !noCursor),
            clock: clock)
        let videoSize = "\(video.format.width)x\(video.format.height)"
        let (videoDevice, videoCounts) = (video.device, video.counts)
        var settings = H264Encoder.Settings()
        settings.realTime = true
        settings.preset = preset
        settings.expectedFrameRate = rate
        settings.averageBitRate = bitrate
        settings.maxKeyFrameInterval = 2 * fps
        // With a microphone, both start at the later of their first samples (a PulseAudio monitor can take
        // a second to deliver): the file begins with both tracks, and the video is not held up meanwhile.
        let start = capture == nil ? nil : SynchronizedStart(sources: 2)
        var videoSource: any MediaSource
        if let start { videoSource = start.source(video, index: 0) } else { videoSource = video }
        if let limit { videoSource = TimeLimit(videoSource, limit: limit) }
        // The preview sees the raw frames on their way to the encoder, each shown at its time on the clock.
        let window =
            input.preview
            ? try VideoPreviewSink(
                title: "camera-recorder: \(video.device)", pacing: .clock(clock), whenClosed: .stop(Interrupt.signal))
            : nil
        var videoStages: [any MediaStage] = [try H264Encoder(settings: settings)]
        if let window { videoStages.insert(MediaTap("preview") { window.submit($0) }, at: 0) }
        var tracks = [graph.addBranch("video", source: videoSource, stages: videoStages)]
        if let capture, let start {
            var audio: any MediaSource = start.source(
                try AudioCaptureSource(
                    device: CaptureOption.device(capture), sampleType: .f32, sampleRate: 48_000, channels: 2,
                    clock: clock),
                index: 1)
            if let limit { audio = TimeLimit(audio, limit: limit) }
            tracks.append(graph.addBranch("audio", source: audio, stages: [try AACEncoder(bitRate: 128_000)]))
        }
        graph.addSink(try ContainerMuxer(path: output), tracks: tracks)
        let reporter = ProgressReporter(name: "camera-recorder", verb: "recorded", enabled: !quiet)
        let progress = try graph.runThreaded(stop: Interrupt.signal, progress: reporter.report)
        let wall = reporter.finish()
        window?.close()
        guard !quiet else { return }
        if let shown = window?.statistics {
            printError(
                "camera-recorder: preview: \(count: Int(shown.shownFrames), "frame") shown, \(shown.lateFrames) late"
                    + (shown.closedByUser ? " (its window was closed: the recording stopped there)" : ""))
        }
        // Ticks the device gave no frame for (a loaded machine, a slow camera): the file has that many
        // fewer frames, and a user comparing its count with fps × duration needs to know why.
        if let warning = VideoCaptureOptions.dropWarning(
            "camera-recorder", device: videoDevice, dropped: videoCounts.droppedFrames)
        {
            printError(warning)
        }
        let parts = progress.branches.map {
            "\($0.name) \(count: $0.samplesRead, "sample"), \(formatDecimal($0.position.seconds ?? 0, 3)) s"
        }
        printError(
            "camera-recorder: \(videoSize) at \(fps) fps: \(parts.joined(separator: "; ")); \(formatDecimal(wall, 2)) s → "
                + "\(output) (\(count: fileSize(output) ?? 0, "byte"))"
                + (Interrupt.wasRequested ? " (interrupted: the file ends there)" : ""))
    }
}
