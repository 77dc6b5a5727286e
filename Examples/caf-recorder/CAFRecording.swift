import ExampleSupport
import MediaPipeline

/// Whether `format` is PCM the CAF muxer writes as it is: interleaved s16, s24, s32, f32 or f64.
func isWritablePCM(_ format: AudioFormat) -> Bool {
    guard let pcm = format.pcm, pcm.isInterleaved else { return false }
    return [.s16, .s24, .s32, .f32, .f64].contains(pcm.sampleType)
}

/// One run of caf-recorder: the source and stages its options call for, the CAF muxer, the summary.
struct CAFRecording {
    let options: CAFRecorderCommand

    init(_ options: CAFRecorderCommand) { self.options = options }

    var bitRate: Int { options.bitrate ?? 96_000 }

    /// PCM is encoded (aac) or kept / converted to s16 (lpcm).
    func pcmStages(_ format: AudioFormat) throws -> [any MediaStage] {
        switch options.format {
        case .aac: return [try AACEncoder(bitRate: bitRate)]
        case .lpcm: return isWritablePCM(format) ? [] : [try AudioConverter(format: .s16)]
        }
    }

    /// AAC packets are passed through (aac) or decoded to s16 (lpcm).
    func packetStages() -> [any MediaStage] {
        options.format == .aac ? [] : [AACDecoder(outputFormat: .s16)]
    }

    func run() throws {
        var source: any MediaSource
        var stages: [any MediaStage] = []
        var wavReader: WAVReader?
        var adtsReader: ADTSReader?
        let logger = ExampleLogHandler.logger(
            for: "caf-recorder", verbose: options.logging.verbose, quiet: options.quiet)
        if let path = options.input {
            switch try InputKind(path: path) {
            case .wav:
                let reader = try WAVReader(path: path)
                wavReader = reader
                source = reader
                stages = try pcmStages(reader.format)
            case .caf:
                let reader = try CAFReader(path: path)
                source = reader
                if reader.format.pcm != nil {
                    stages = try pcmStages(reader.format)
                } else if reader.format.codec == .aac {
                    stages = packetStages()
                } else {
                    throw MediaError(
                        .unsupportedFormat, "caf-recorder records PCM or AAC, not \(reader.format.codec) from \(path)")
                }
            case .adts:
                let reader = try ADTSReader(path: path)
                adtsReader = reader
                source = reader
                stages = packetStages()
            }
        } else {
            // The tone of aac-encoder; for lpcm generated as s16, as a microphone delivers it.
            let rate = 48_000
            let length: ToneGenerator.Length =
                if let frames = options.frames { .frames(frames) } else {
                    .duration(
                        MediaTime(
                            value: Int64(((options.duration ?? 5) * Double(rate)).rounded()), timescale: Int32(rate)))
                }
            let sampleType: PCMSampleType = options.format == .lpcm ? .s16 : .f32
            source = try ToneGenerator(
                .sine(frequency: options.tone ?? 440, amplitude: 0.5), sampleRate: rate, channels: 2,
                sampleType: sampleType, length: length)
            stages = try pcmStages(.pcm(PCMFormat(sampleType), sampleRate: rate, channels: 2))
        }
        // The readers' diagnostics (a WAV file cut short, bytes skipped in ADTS …), one line each on
        // standard error; given to the readers themselves, so that they log also when wrapped
        // (RealTimeSource), where the pipeline cannot see them.
        wavReader?.logger = logger
        adtsReader?.logger = logger
        if options.realtime { source = RealTimeSource(source) }

        let muxer = CAFMuxer(output: try FileOutput(path: options.output))
        var pipeline = Pipeline(source: source, stages: stages, sink: muxer, logger: logger)
        let progress = ProgressReporter(
            name: "caf-recorder", verb: "recorded", enabled: !options.quiet && options.output != "-")
        let result = try pipeline.run(progress: progress.reportUntilInterrupted)
        let wall = progress.finish()
        guard !options.quiet else { return }
        let rate = muxer.format?.sampleRate ?? 0
        // PCM out: the frames written; AAC out: the frames that went in (for a remux, the packets' frames).
        let framesOut = options.format == .lpcm ? muxer.packetsWritten : result.framesRead
        let audioSeconds = rate > 0 ? Double(framesOut) / Double(rate) : 0
        let kind = options.format == .aac ? "AAC" : "PCM"
        printError(
            "caf-recorder: \(count: result.framesRead, "frame") in, \(count: muxer.packetsWritten, "packet") out, "
                + "\(formatDecimal(audioSeconds, 3)) s of audio, \(count: muxer.dataBytesWritten, "byte") of \(kind), "
                + "\(formatDecimal(audioSeconds / max(wall, 1e-9), 1))x realtime → \(options.output)"
                + (adtsReader != nil && options.format == .aac
                    ? " (ADTS has no priming or remainder: pakt says 0 for both)" : ""))
        let path = options.input ?? ""
        let warning =
            if let wavReader {
                InputWarnings.line(example: "caf-recorder", path: path, wav: wavReader)
            } else if let adtsReader { InputWarnings.line(example: "caf-recorder", path: path, adts: adtsReader) } else
            { String?.none }
        if let warning { printError(warning) }
    }
}
