import ArgumentParser
import ExampleSupport
import Foundation
import MediaPipeline
import Synchronization

/// `audio-recorder --output FILE [--device NAME] [--format aac|lpcm] [--rate HZ] [--channels N]
/// [--bitrate BPS] [--duration SECONDS] [--meter] [--meter-json]`.
struct AudioRecorderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio-recorder",
        abstract: "Record audio to a file, like AVAudioRecorder: from a PulseAudio device, or a generated tone.",
        discussion: """
            The container comes from the output's extension: .caf (AAC or linear PCM), .m4a (AAC, fragmented), \
            .aac (ADTS), .wav and .aif/.aiff (linear PCM). Records until --duration or Ctrl-C; either way the \
            file is finished (exit status 130 after Ctrl-C).

            Examples:
              audio-recorder --output take.m4a
              audio-recorder --output take.wav --duration 10 --rate 44100
              audio-recorder --output take.caf --format lpcm --bits 24 --meter
              audio-recorder --output tone.aac --tone 440 --duration 5
            """,
        version: "0.2.0")

    enum DataFormat: String, ExpressibleByArgument, CaseIterable {
        case aac, lpcm
    }

    @Option(help: ArgumentHelp("The file to write (.caf .m4a .aac .wav .aif .aiff).", valueName: "FILE"))
    var output: String

    @Option(help: ArgumentHelp("The PulseAudio source to record (default: the default input).", valueName: "NAME"))
    var device: String?

    @Option(help: "aac or lpcm (default: aac, or lpcm for .wav and .aif).")
    var format: DataFormat?

    @Option(help: ArgumentHelp("Sample rate in Hz.", valueName: "HZ"))
    var rate = 48_000

    @Option(help: ArgumentHelp("Channels.", valueName: "N"))
    var channels = 2

    @Option(help: ArgumentHelp("AAC bit rate in bits per second.", valueName: "BPS"))
    var bitrate = 128_000

    @Option(help: ArgumentHelp("Linear PCM bits per sample: 16, 24 or 32.", valueName: "BITS"))
    var bits = 16

    @Option(help: ArgumentHelp("Stop after this many seconds (default: until Ctrl-C).", valueName: "SECONDS"))
    var duration: Double?

    @Option(
        help: ArgumentHelp(
            "Record a generated sine at HZ Hz (amplitude 0.5) in real time instead of a device.", valueName: "HZ"))
    var tone: Double?

    @Flag(help: "Draw a live level bar on the terminal.")
    var meter = false

    @Flag(
        name: .customLong("meter-json"),
        help: "Print one JSON object per 100 ms with `peak` and `average` arrays in dBFS.")
    var meterJSON = false

    @Flag(
        name: .customLong("latency-json"),
        help:
            "At the end, print the capture latency measured every 100 ms as JSON on standard error: {\"p50Ms\":…,\"p99Ms\":…,\"maxMs\":…,\"samples\":N}."
    )
    var latencyJSON = false

    /// `--verbose`: also say what is recorded from where, before recording.
    @OptionGroup var logging: VerboseOption

    @Flag(name: .shortAndLong, help: "Print no warnings (errors only): not the count of overruns at the end.")
    var quiet = false
    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func validate() throws {
        guard let container = AudioRecordingContainer(path: output) else {
            throw ValidationError(
                "cannot tell the container of '\(output)' from its extension; use .caf .m4a .aac .wav .aif or .aiff")
        }
        if let format, !container.holds(format == .aac ? .aac : .linearPCM) {
            throw ValidationError("a .\(container.rawValue) file cannot hold \(format.rawValue)")
        }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
        if tone != nil, device != nil { throw ValidationError("--tone and --device exclude each other") }
    }

    func run() throws {
        let container = AudioRecordingContainer(path: output)
        let dataFormat: AudioRecorderSettings.Format =
            format.map { $0 == .aac ? .aac : .linearPCM } ?? (container?.holds(.aac) == true ? .aac : .linearPCM)
        let settings = AudioRecorderSettings(
            format: dataFormat, sampleRate: rate, channels: channels, bitRate: bitrate, bitDepth: bits)
        let recorder = try AudioRecorder(path: output, settings: settings, input: try input(settings))
        if logging.verbose && !quiet {
            let from = tone.map { "a \(formatDecimal($0, 1)) Hz tone" } ?? device ?? "the default input"
            printError("audio-recorder: recording \(from), \(rate) Hz, \(channels) channels → \(output)")
        }
        if let duration { try recorder.record(forDuration: duration) } else { try recorder.record() }
        let outcome = RecorderOutcome()
        recorder.onEvent = { outcome.take($0) }
        recorder.isMeteringEnabled = meter || meterJSON
        var interrupted = false
        var latencies: [Double] = []
        let clock = ContinuousClock()
        var nextMeter = clock.now + .milliseconds(100)
        while !outcome.isFinished {
            if Interrupt.wasRequested, !interrupted {
                interrupted = true
                recorder.stop()
            }
            if clock.now >= nextMeter {
                nextMeter += .milliseconds(100)
                if recorder.isMeteringEnabled {
                    recorder.updateMeters()
                    report(recorder)
                }
                if latencyJSON, let latency = recorder.inputLatency?.seconds { latencies.append(latency * 1000) }
            }
            usleep(50_000)  // the meters and Ctrl-C are read every 50 ms; polling faster costs CPU for nothing
        }
        if meter { printError("") }
        if latencyJSON {
            let sorted = latencies.sorted()
            func percentile(_ p: Double) -> Double {
                sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
            }
            printError(
                String(
                    format: "{\"p50Ms\":%.2f,\"p99Ms\":%.2f,\"maxMs\":%.2f,\"samples\":%d}", percentile(0.5),
                    percentile(0.99), sorted.last ?? 0, sorted.count))
        }
        if let error = outcome.error { throw error }
        if outcome.lostInput > 0 && !quiet {
            printError("audio-recorder: warning: input was lost \(count: outcome.lostInput, "time") (overruns)")
        }
    }

    /// One `--meter-json` line, or the `--meter` bar drawn in place on standard error.
    private func report(_ recorder: AudioRecorder) {
        let peak = (0..<channels).map { Double(recorder.peakPower(forChannel: $0)) }
        let average = (0..<channels).map { Double(recorder.averagePower(forChannel: $0)) }
        if meterJSON {
            let list = { (values: [Double]) in values.map { String(format: "%.2f", $0) }.joined(separator: ",") }
            let line =
                "{\"time\":\(String(format: "%.3f", recorder.currentTime)),\"peak\":[\(list(peak))],\"average\":[\(list(average))]}\n"
            FileHandle.standardOutput.write(Data(line.utf8))  // unbuffered: one line every 100 ms, also into a pipe
        }
        if meter {
            let bars = zip(peak, average).map { p, a in LevelBar.draw(peak: p, average: a, width: 30) }
            printErrorInPlace(String(format: "%7.2f s  ", recorder.currentTime) + bars.joined(separator: "  "))
        }
    }

    private func input(_ settings: AudioRecorderSettings) throws -> AudioRecorderInput {
        if let tone {
            let rate = settings.sampleRate, channels = settings.channels
            return .source {
                RealTimeSource(
                    try ToneGenerator(
                        .sine(frequency: tone, amplitude: 0.5), sampleRate: rate, channels: channels,
                        sampleType: .f32, length: .unlimited, framesPerSample: rate / 100))
            }
        }
        return .device(device)
    }
}

/// What the recorder reported, read by the main thread.
final class RecorderOutcome: Sendable {
    private let state = Mutex<(finished: Bool, error: MediaError?, lost: Int)>((false, nil, 0))

    func take(_ event: AudioRecorderEvent) {
        state.withLock { s in
            switch event {
            case .finished: s.finished = true
            case .error(let error): s.error = error
            case .inputLost(let count): s.lost = count
            }
        }
    }

    var isFinished: Bool { state.withLock { $0.finished } }
    var error: MediaError? { state.withLock { $0.error } }
    var lostInput: Int { state.withLock { $0.lost } }
}
