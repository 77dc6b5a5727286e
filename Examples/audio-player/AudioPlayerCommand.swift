import ArgumentParser
import ExampleSupport
import Foundation
import MediaPipeline

/// `audio-player FILE [--device NAME] [--volume V] [--pan P] [--rate R] [--loops N] [--start S]`.
struct AudioPlayerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio-player",
        abstract: "Play an audio file, like AVAudioPlayer: WAVE, AIFF, CAF, NeXT, ADTS or MP3 to a PulseAudio device.",
        discussion: """
            Shows the position, the duration and a level bar. When a terminal is attached: space pauses and \
            resumes, the left and right arrow keys seek 5 seconds, q stops. Exits 0 at the end of the file \
            (after every loop), 130 after Ctrl-C.

            Examples:
              audio-player song.mp3
              audio-player loop.caf --loops -1 --volume 0.5
              audio-player talk.m4a --rate 1.5 --start 60
              audio-player song.mp3 --render out.wav --rate 2
              curl -s https://example.com/song.mp3 | audio-player -
            """,
        version: "0.2.0")

    @Argument(
        help: ArgumentHelp(
            "The file to play; - plays standard input as it arrives (a download piped in: curl -s URL | audio-player -).",
            valueName: "FILE"))
    var file: String

    @Option(help: ArgumentHelp("The PulseAudio sink to play to (default: the default output).", valueName: "NAME"))
    var device: String?

    @Option(help: ArgumentHelp("Linear gain 0…1.", valueName: "V"))
    var volume: Float = 1

    // `.unconditional`: the value may start with a dash (`--pan -1`), which would otherwise read as a flag.
    @Option(parsing: .unconditional, help: ArgumentHelp("-1 (left) … 1 (right).", valueName: "P"))
    var pan: Float = 0

    @Option(help: ArgumentHelp("Speed 0.5…2 with the pitch kept.", valueName: "R"))
    var rate: Float = 1

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Loops after the first play; -1 (`--loops -1`) loops until stopped.", valueName: "N"))
    var loops = 0

    @Option(help: ArgumentHelp("Start this many seconds into the file.", valueName: "S"))
    var start: Double = 0

    @Option(
        help: ArgumentHelp(
            "Write what would be played to a WAV file instead of a device, as fast as possible.", valueName: "OUT.wav"))
    var render: String?

    @Flag(help: "No position line or level bar.")
    var quiet = false

    /// `--verbose`: also say what is played where, before playing.
    @OptionGroup var logging: VerboseOption
    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func validate() throws {
        guard (0...1).contains(volume) else { throw ValidationError("--volume must be 0…1") }
        guard (-1...1).contains(pan) else { throw ValidationError("--pan must be -1…1") }
        guard (0.5...2).contains(rate) else { throw ValidationError("--rate must be 0.5…2") }
        guard start >= 0 else { throw ValidationError("--start must be 0 or more") }
        if render != nil, device != nil { throw ValidationError("--render and --device exclude each other") }
        if file == "-", rate != 1 || loops != 0 {
            throw ValidationError("--rate and --loops need a file: standard input plays once, as it arrives")
        }
    }

    func run() throws {
        // The file first: a missing or unreadable one is named as such, not as a device that cannot be
        // reached (the output connects to PulseAudio when it is made).
        if file != "-" { _ = try AudioFileReader(path: file) }
        let output: AudioPlayerOutput
        if let render {
            output = .sink { _ in WAVMuxer(output: try FileOutput(path: render)) }
        } else {
            output = try .device(device)
        }
        if file == "-" { return try playStandardInput(into: output) }
        let player = try AudioPlayer(path: file, output: output)
        if logging.verbose && !quiet {
            let target = render ?? device ?? "the default output"
            printError("audio-player: playing \(file) (\(formatDecimal(player.duration, 3)) s) → \(target)")
        }
        player.volume = volume
        player.pan = pan
        player.enableRate = rate != 1
        player.rate = rate
        player.numberOfLoops = loops
        player.isMeteringEnabled = !quiet
        if start > 0 { player.currentTime = start }
        let outcome = PlayerOutcome()
        player.onEvent = { outcome.take($0) }
        let keys = KeyReader.attach()
        defer { keys?.detach() }
        try player.play()
        while !outcome.isFinished {
            if Interrupt.wasRequested { player.stop() }
            switch keys?.read() {
            case .togglePause?: if player.isPlaying { player.pause() } else { try player.play() }
            case .seek(let by)?: player.currentTime = max(0, player.currentTime + by)
            case .quit?: player.stop()
            case nil: break
            }
            if !quiet {
                player.updateMeters()
                let level = LevelLine.draw(player.peakPower(forChannel: 0), player.averagePower(forChannel: 0))
                printErrorInPlace(
                    String(format: "%7.2f / %.2f s  ", player.currentTime, player.duration) + level
                        + (player.isPlaying ? "" : "  paused"))
            }
            usleep(50_000)
        }
        if !quiet { printError("") }
        if let error = outcome.error { throw error }
    }

    /// Plays standard input with ``AudioStreamPlayer`` as its bytes arrive: playback starts with the first
    /// packets, and waits when the bytes come slower than the audio plays.
    func playStandardInput(into output: AudioPlayerOutput) throws {
        let player = try AudioStreamPlayer(output: output, name: "standard input")
        player.volume = volume
        player.pan = pan
        if start > 0 { player.currentTime = start }
        let outcome = PlayerOutcome()
        player.onEvent = { outcome.take($0) }
        try player.play()
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(0, &buffer, buffer.count)
                if count <= 0 { break }
                player.push(buffer[..<count])
            }
            player.finish()
        }
        if logging.verbose && !quiet {
            printError(
                "audio-player: playing standard input as it arrives → \(render ?? device ?? "the default output")")
        }
        while !outcome.isFinished {
            if Interrupt.wasRequested { player.stop() }
            if !quiet {
                let arrived = player.stream.count
                printErrorInPlace(
                    String(format: "%7.2f s  (%lld KiB arrived)", player.currentTime, arrived / 1024)
                        + (player.isPlaying ? "" : "  paused"))
            }
            usleep(50_000)
        }
        if !quiet { printError("") }
        if let error = outcome.error { throw error }
    }
}
