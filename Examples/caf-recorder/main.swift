// caf-recorder: PCM (a generated tone, a WAV or PCM CAF file) → AAC-LC or linear PCM → CAF, the way
// Apple's AudioFile records. AAC input (ADTS or CAF) is remuxed into CAF, or decoded for --format lpcm.
#if canImport(Glibc)
import Glibc
#endif
import ExampleSupport
import MediaPipeline

/// The kind of file `path` names, from its extension.
enum InputKind {
    case wav, caf, adts

    init(path: String) throws(UsageError) {
        let lower = path.lowercased()
        if lower.hasSuffix(".wav") || lower.hasSuffix(".wave") { self = .wav }
        else if lower.hasSuffix(".caf") { self = .caf }
        else if lower.hasSuffix(".aac") || lower.hasSuffix(".adts") { self = .adts }
        else { throw UsageError("cannot tell the format of '\(path)' from its name (use .wav, .caf or .aac)") }
    }
}

/// Whether `format` is PCM the CAF muxer writes as it is: interleaved s16, s24, s32, f32 or f64.
func isWritablePCM(_ format: AudioFormat) -> Bool {
    guard let pcm = format.pcm, pcm.isInterleaved else { return false }
    return [.s16, .s24, .s32, .f32, .f64].contains(pcm.sampleType)
}

func run() throws -> Int32 {
    Interrupt.install()  // Ctrl-C: finish the file, exit 130
    let options: Options
    let inputKind: InputKind?
    do {
        options = try Options(Array(CommandLine.arguments.dropFirst()))
        if case .file(let path) = options.input { inputKind = try InputKind(path: path) } else { inputKind = nil }
    } catch {
        return error.report(as: "caf-recorder")
    }

    // Source and stages: PCM is encoded (aac) or kept / converted to s16 (lpcm); AAC packets are
    // passed through (aac) or decoded to s16 (lpcm).
    var source: any MediaSource
    var stages: [any MediaStage] = []
    var wavReader: WAVReader?
    var adtsInput = false
    let pcmStages: (AudioFormat) throws -> [any MediaStage] = { format in
        switch options.format {
        case .aac: return [try AACEncoder(bitRate: options.bitRate)]
        case .lpcm: return isWritablePCM(format) ? [] : [try AudioConverter(format: .s16)]
        }
    }
    let packetStages: () -> [any MediaStage] = {
        options.format == .aac ? [] : [AACDecoder(outputFormat: .s16)]
    }
    switch (options.input, inputKind) {
    case (.tone(let frequency), _):
        // The tone of aac-encoder; for lpcm generated as s16, as a microphone delivers it.
        let rate = 48_000
        let length: ToneGenerator.Length =
            if let frames = options.frames { .frames(frames) }
            else { .duration(MediaTime(value: Int64(((options.durationSeconds ?? 5) * Double(rate)).rounded()), timescale: Int32(rate))) }
        let sampleType: PCMSampleType = options.format == .lpcm ? .s16 : .f32
        source = try ToneGenerator(
            .sine(frequency: frequency, amplitude: 0.5), sampleRate: rate, channels: 2, sampleType: sampleType, length: length)
        stages = try pcmStages(.pcm(PCMFormat(sampleType), sampleRate: rate, channels: 2))
    case (.file(let path), .wav?):
        let reader = try WAVReader(path: path)
        wavReader = reader
        source = reader
        stages = try pcmStages(reader.format)
    case (.file(let path), .caf?):
        let reader = try CAFReader(path: path)
        source = reader
        if reader.format.pcm != nil {
            stages = try pcmStages(reader.format)
        } else if reader.format.codec == .aac {
            stages = packetStages()
        } else {
            throw MediaError(.unsupportedFormat, "caf-recorder records PCM or AAC, not \(reader.format.codec) from \(path)")
        }
    case (.file(let path), .adts?), (.file(let path), nil):
        source = try ADTSReader(path: path)
        adtsInput = true
        stages = packetStages()
    }
    if options.realtime { source = RealTimeSource(source) }

    let output = try FileOutput(path: options.output)
    let muxer = CAFMuxer(output: output)
    // The library's diagnostics (a WAV file cut short …), one line each on standard error; --quiet: errors only.
    let logger = ExampleLogHandler.logger(for: "caf-recorder", verbose: false, quiet: options.quiet)
    wavReader?.logger = logger  // also when wrapped (RealTimeSource), where the pipeline cannot see it
    var pipeline = Pipeline(source: source, stages: stages, sink: muxer, logger: logger)

    let progress = ProgressReporter(name: "caf-recorder", verb: "recorded", enabled: !options.quiet && options.output != "-")
    let result = try pipeline.run(progress: progress.reportUntilInterrupted)
    let wall = progress.finish()
    let rate = muxer.format?.sampleRate ?? 0
    // PCM out: the frames written; AAC out: the frames that went in (for a remux, the packets' frames).
    let framesOut = options.format == .lpcm ? muxer.packetsWritten : result.framesRead
    let audioSeconds = rate > 0 ? Double(framesOut) / Double(rate) : 0
    let kind = options.format == .aac ? "AAC" : "PCM"
    let summary = "caf-recorder: \(count: result.framesRead, "frame") in, \(count: muxer.packetsWritten, "packet") out, "
        + "\(formatDecimal(audioSeconds, 3)) s of audio, \(count: muxer.dataBytesWritten, "byte") of \(kind), "
        + "\(formatDecimal(audioSeconds / max(wall, 1e-9), 1))x realtime → \(options.output)"
        + (adtsInput && options.format == .aac ? " (ADTS has no priming or remainder: pakt says 0 for both)" : "")
    if !options.quiet { printError(summary) }
    return 0
}

runExample("caf-recorder", run)
