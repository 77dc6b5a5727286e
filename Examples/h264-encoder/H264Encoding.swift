import ArgumentParser
import ExampleSupport
import MediaPipeline

/// One run of h264-encoder: the source and stages its options call for, the encoder, the summary.
struct H264Encoding {
    let options: H264EncoderCommand

    init(_ options: H264EncoderCommand) { self.options = options }

    func run() throws {
        let fps = try options.frameRate
        // Source, and the stages that bring it to raw frames libx264 takes.
        var source: any MediaSource
        var stages: [any MediaStage] = []
        var pixelFormat: PixelFormat?
        switch options.input {
        case nil:
            let size = try options.videoSize ?? (1280, 720)
            let length: TestPatternGenerator.Length =
                if let seconds = options.duration {
                    .duration(MediaTime(value: Int64((seconds * 1000).rounded()), timescale: 1000))
                } else {
                    .frames(Int64(options.frames ?? 240))
                }
            source = try TestPatternGenerator(
                width: size.width, height: size.height, frameRate: fps ?? FrameRate(25), length: length)
            pixelFormat = .yuv420p
        case let path? where path.hasSuffix(".y4m"):
            guard fps == nil else {
                throw ValidationError(
                    "a .y4m input carries its own frame rate; --fps applies to --pattern, .yuv and .h264 inputs")
            }
            let reader = try Y4MReader(path: path)
            pixelFormat = reader.format.pixelFormat
            source = reader
        case let path? where path.hasSuffix(".h264") || path.hasSuffix(".264"):
            // Read the access units, decode them to frames, re-encode below.
            source = try AnnexBReader(path: path, defaultFrameRate: fps ?? FrameRate(25))
            stages.append(H264Decoder())
            stages.append(Retimer())
            pixelFormat = nil  // known after decoding: convert when it is not one libx264 takes
        case let path?:
            guard let size = try options.videoSize, let format = try options.pixelFormat else {
                throw ValidationError("a raw input needs --size WxH and --pix-fmt (or use .y4m or .h264)")
            }
            source = try RawVideoReader(
                path: path, width: size.width, height: size.height, pixelFormat: format, frameRate: fps ?? FrameRate(25)
            )
            pixelFormat = format
        }
        if let frames = options.frames, options.input != nil { source = FirstFrames(source: source, limit: frames) }
        // --realtime: frames arrive at the pace of their timestamps, as from a camera, and the encoder is
        // tuned for zero latency (one access unit out per frame in).
        if options.realtime { source = RealTimeSource(source) }
        if let target = try options.encodedPixelFormat {
            stages.append(try VideoConverter(to: target))  // passes frames already in it through
        } else if pixelFormat.map({ !encoderPixelFormats.contains($0) }) ?? true {
            // Frames libx264 does not take, and every .h264 input's (8-bit or not, 4:2:0 or not): yuv420p.
            stages.append(try VideoConverter(to: .yuv420p))
        }
        stages.append(try H264Encoder(settings: settings, encoderName: options.encoder))

        // Sink: Annex-B with SPS/PPS before every keyframe.
        let output = try FileOutput(path: options.output)
        // The decoder's concealed and missing frames (and any reader's diagnostics), one line each on
        // standard error as ffmpeg prints them; --quiet: errors only, --verbose: debug and up.
        let logger = ExampleLogHandler.logger(
            for: "h264-encoder", verbose: options.logging.verbose, quiet: options.quiet)
        // The pipeline hands the logger to the reader and decoder through its collector, which counts their
        // warnings for the summary line below (a logger set here by hand would bypass it).
        let muxer = AnnexBMuxer(output: output, accessUnitDelimiters: options.aud)
        var pipeline = Pipeline(source: source, stages: stages, sink: CountingMuxer(muxer: muxer), logger: logger)
        let progress = ProgressReporter(
            name: "h264-encoder", verb: "encoded", enabled: !options.quiet && options.output != "-")
        // The reader (and converter) on threads of their own beside the encoder's: a 720p frame is 1.4 MB
        // to read and copy, enough work to overlap with x264's (Benchmarks/README.md).
        let result = try pipeline.runConcurrently(progress: progress.reportUntilInterrupted)
        let wall = progress.finish()

        guard let counted = pipeline.finishedSink as? CountingMuxer, !options.quiet else { return }
        let span = counted.endTime - counted.firstTime
        let seconds = span.isNumeric ? Double(span.value) / Double(span.timescale) : 0
        let bitRate = seconds > 0 ? Double(output.position * 8) / seconds : 0
        let bytes = output.position  // the file's size: start codes and parameter sets included
        printError(
            "h264-encoder: \(count: result.samplesRead, "frame") in, \(count: counted.frames, "frame") out, \(count: counted.keyframes, "keyframe"), "
                + "\(count: bytes, "byte"), \(formatDecimal(bitRate / 1000, 1)) kb/s over \(formatDecimal(seconds, 3)) s, "
                + "\(formatDecimal(Double(counted.frames) / max(wall, 1e-9), 1)) fps → \(options.output)")
        // What the reader and decoder worked around, summed up in one line after the warnings themselves.
        let warning = InputWarnings.line(
            example: "h264-encoder", path: options.input ?? "--pattern", warningCount: result.warningCount,
            warnings: result.warnings)
        if let warning { printError(warning) }
    }

    /// The encoder settings: the ffmpeg CLI's libx264 defaults, changed only where asked.
    var settings: H264Encoder.Settings {
        var settings = H264Encoder.Settings()
        settings.realTime = options.realtime
        settings.averageBitRate = options.bitrate
        if let maxRate = options.maxrate, let bufferSize = options.bufsize {
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
        return settings
    }
}

/// The 8-bit pixel formats libx264 takes as they are by default; others are converted to yuv420p first.
let encoderPixelFormats: Set<PixelFormat> = [.yuv420p, .yuv422p, .yuv444p, .nv12]

/// The pixel formats `--pixel-format` offers: libx264's 8- and 10-bit planar ones, and nv12.
let encodablePixelFormats: [PixelFormat] = [
    .yuv420p, .yuv422p, .yuv444p, .nv12, .yuv420p10le, .yuv422p10le, .yuv444p10le
]
