// h264-encoder: raw video (a .y4m or .yuv file, the test pattern) or an .h264 file → H.264 → Annex-B.
// The pipeline is the one Examples/h264-encoder/README.md shows in code.
import ExampleSupport
import MediaPipeline

/// Passes samples to the Annex-B muxer and counts the keyframes among them, for the summary.
struct CountingMuxer: MediaSink {
    var muxer: AnnexBMuxer
    var keyframes: Int64 = 0
    var frames: Int64 = 0
    var firstTime: MediaTime = .invalid
    var endTime: MediaTime = .invalid

    mutating func write(_ sample: MediaSample) throws {
        try muxer.write(sample)
        frames += 1
        if sample.flags.contains(.keyframe) { keyframes += 1 }
        let pts = sample.timing.presentationTime
        if !firstTime.isValid || pts < firstTime { firstTime = pts }
        let end = pts + sample.timing.duration
        if !endTime.isValid || end > endTime { endTime = end }
    }

    mutating func finish() throws { try muxer.finish() }

    var name: String { muxer.name }
}

/// Hands out at most `limit` samples of `source` (ffmpeg's `-frames:v`).
struct FirstFrames: MediaSource {
    var source: any MediaSource
    var limit: Int
    var given = 0

    mutating func next() throws -> MediaSample? {
        guard given < limit, let sample = try source.next() else { return nil }
        given += 1
        return sample
    }

    var name: String { source.name }
}

/// Gives the decoded frames of an `.h264` input consecutive timestamps in presentation order. An
/// elementary stream carries none: the reader numbers access units in decode order, which with
/// B-frames is not the order the decoder hands frames out in. The ffmpeg CLI does the same for raw H.264.
struct Retimer: MediaStage {
    var index: Int64 = 0

    mutating func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        guard let rate = sample.format.video?.frameRate, rate.isValid else { return try emit(sample) }
        var frame = sample
        let pts = rate.time(ofFrame: index)
        frame.timing = SampleTiming(presentationTime: pts, decodeTime: pts, duration: rate.frameDuration)
        index += 1
        try emit(frame)
    }

    mutating func finish(into emit: (MediaSample) throws -> Void) throws {}
}

/// The pixel formats libx264 takes as they are; others are converted to yuv420p first.
let encoderPixelFormats: Set<PixelFormat> = [.yuv420p, .yuv422p, .yuv444p, .nv12]

func run() throws -> Int32 {
    Interrupt.install()  // Ctrl-C: finish the file, exit 130
    let options: Options
    do {
        options = try Options(Array(CommandLine.arguments.dropFirst()))
    } catch {
        return error.report(as: "h264-encoder")
    }

    // Source, and the stages that bring it to raw frames libx264 takes.
    var source: any MediaSource
    var stages: [any MediaStage] = []
    var decoder: H264Decoder?  // an .h264 input's, for its count of damaged access units
    var pixelFormat: PixelFormat?
    switch options.input {
    case .pattern:
        let size = options.size ?? (1280, 720)
        let rate = options.fps ?? FrameRate(25)
        let length: TestPatternGenerator.Length =
            if let seconds = options.durationSeconds {
                .duration(MediaTime(value: Int64((seconds * 1000).rounded()), timescale: 1000))
            } else {
                .frames(Int64(options.frames ?? 240))
            }
        source = try TestPatternGenerator(width: size.width, height: size.height, frameRate: rate, length: length)
        pixelFormat = .yuv420p
    case .file(let path) where path.hasSuffix(".y4m"):
        guard options.fps == nil else {
            throw UsageError("a .y4m input carries its own frame rate; --fps applies to --pattern, .yuv and .h264 inputs")
        }
        let reader = try Y4MReader(path: path)
        pixelFormat = reader.format.pixelFormat
        source = reader
    case .file(let path) where path.hasSuffix(".h264") || path.hasSuffix(".264"):
        // Read the access units, decode them to frames, re-encode below.
        source = try AnnexBReader(path: path, defaultFrameRate: options.fps ?? FrameRate(25))
        let h264Decoder = H264Decoder()
        decoder = h264Decoder
        stages.append(h264Decoder)
        stages.append(Retimer())
        pixelFormat = nil  // known after decoding: convert when it is not one libx264 takes
    case .file(let path):
        guard let size = options.size, let format = options.pixelFormat else {
            throw UsageError("a raw input needs --size WxH and --pix-fmt (or use .y4m or .h264)")
        }
        source = try RawVideoReader(
            path: path, width: size.width, height: size.height, pixelFormat: format, frameRate: options.fps ?? FrameRate(25))
        pixelFormat = format
    }
    if let frames = options.frames, case .file = options.input { source = FirstFrames(source: source, limit: frames) }
    // --realtime: frames arrive at the pace of their timestamps, as from a camera, and the encoder is
    // tuned for zero latency (one access unit out per frame in).
    if options.realtime { source = RealTimeSource(source) }
    if let pixelFormat, !encoderPixelFormats.contains(pixelFormat) {
        stages.append(try VideoConverter(to: .yuv420p))
    } else if pixelFormat == nil {
        stages.append(try VideoConverter(to: .yuv420p))
    }

    // Encoder: the ffmpeg CLI's libx264 defaults, changed only where asked.
    var settings = H264Encoder.Settings()
    settings.realTime = options.realtime
    settings.averageBitRate = options.bitRate
    if let maxRate = options.maxRate, let bufferSize = options.bufferSize {
        settings.dataRateLimit = (maxBitRate: maxRate, bufferSize: bufferSize)
    }
    settings.maxKeyFrameInterval = options.keyint
    settings.preset = options.preset
    settings.threads = options.threads
    settings.profile = options.profile
    settings.level = options.level
    if let bframes = options.bframes {
        settings.allowFrameReordering = bframes > 0
        settings.maxBFrames = bframes
    }
    stages.append(try H264Encoder(settings: settings, encoderName: options.encoderName))

    // Sink: Annex-B with SPS/PPS before every keyframe.
    let output = try FileOutput(path: options.output)
    // The decoder's concealed and missing frames (and any reader's diagnostics), one line each on
    // standard error as ffmpeg prints them; --quiet: errors only.
    let logger = ExampleLogHandler.logger(for: "h264-encoder", verbose: false, quiet: options.quiet)
    decoder?.logger = logger  // the pipeline hands it on too, but say so where the decoder is made
    var pipeline = Pipeline(source: source, stages: stages, sink: CountingMuxer(
        muxer: AnnexBMuxer(output: output, accessUnitDelimiters: options.accessUnitDelimiters)), logger: logger)
    let progress = ProgressReporter(name: "h264-encoder", verb: "encoded", enabled: !options.quiet && options.output != "-")
    // The reader (and converter) on threads of their own beside the encoder's: a 720p frame is 1.4 MB
    // to read and copy, enough work to overlap with x264's (Benchmarks/README.md).
    let result = try pipeline.runConcurrently(progress: progress.reportUntilInterrupted)
    let wall = progress.finish()

    guard let counted = pipeline.finishedSink as? CountingMuxer else { return 0 }
    let span = counted.endTime - counted.firstTime
    let seconds = span.isNumeric ? Double(span.value) / Double(span.timescale) : 0
    let bitRate = seconds > 0 ? Double(output.position * 8) / seconds : 0
    let bytes = output.position  // the file's size: start codes and parameter sets included
    let summary = "h264-encoder: \(count: result.samplesRead, "frame") in, \(count: counted.frames, "frame") out, \(count: counted.keyframes, "keyframe"), "
        + "\(count: bytes, "byte"), \(formatDecimal(bitRate / 1000, 1)) kb/s over \(formatDecimal(seconds, 3)) s, "
        + "\(formatDecimal(Double(counted.frames) / max(wall, 1e-9), 1)) fps → \(options.output)"
    if !options.quiet { printError(summary) }
    return 0
}

runExample("h264-encoder", run)
