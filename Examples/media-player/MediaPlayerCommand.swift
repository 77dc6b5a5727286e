import ArgumentParser
import ExampleSupport
import Foundation
import MediaDisplay
import MediaPipeline

/// `media-player FILE [--device NAME] [--no-display] [--start S] [--rate R] [--volume V] [--loop] ...`.
struct MediaPlayerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media-player",
        abstract: "Play a movie like ffplay: its H.264 video in a window, its audio on a PulseAudio device, in sync.",
        discussion: """
            The video is shown at the time its sound is heard (the audio device's clock, as ffplay's default). \
            Keys, in the window or on a terminal: space pauses and resumes, the left and right arrows seek \
            10 seconds back and forth (up and down: 60), q or Escape quits. Prints the position on standard \
            error and one summary line at the end. Exits 0 at the end of the file (after every loop), at q or \
            when the window is closed; 130 after Ctrl-C; 1 with one line when the file, the device or the \
            display fails.

            Examples:
              media-player movie.mp4
              media-player movie.mkv --start 60 --rate 1.5 --volume 0.5
              media-player clip.mp4 --loop
              media-player movie.mp4 --no-display
            """,
        version: "0.1.0")

    @Argument(help: ArgumentHelp("The file to play (MP4, MOV, MKV, TS, FLV, M4A, MP3, WAV...).", valueName: "FILE"))
    var file: String

    @Option(help: ArgumentHelp("The PulseAudio sink to play to (default: the default output).", valueName: "NAME"))
    var device: String?

    @Flag(name: .customLong("no-display"), help: "Play the audio only, with no window (ffplay's -nodisp).")
    var noDisplay = false

    @Flag(name: .customLong("no-audio"), help: "Show the video only, timed by the host clock (ffplay's -an).")
    var noAudio = false

    @Option(help: ArgumentHelp("Start this many seconds into the file.", valueName: "S"))
    var start: Double = 0

    @Option(help: ArgumentHelp("Speed 0.5…2, the audio's pitch kept.", valueName: "R"))
    var rate: Float = 1

    @Option(help: ArgumentHelp("Linear gain of the audio 0…1.", valueName: "V"))
    var volume: Float = 1

    @Flag(help: "Loop until stopped (as ffplay -loop 0).")
    var loop = false

    // `.unconditional`: `--loops -1` (for ever, as `numberOfLoops` takes it) would otherwise read -1 as a flag.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Loops after the first play; -1 (or --loop) loops until stopped.", valueName: "N"))
    var loops = 0

    @Flag(help: "Seek with the keys to the keyframe before the time (faster) instead of exactly.")
    var keyframeSeeks = false

    @Option(help: ArgumentHelp("Stop after S seconds of playing.", valueName: "S"))
    var duration: Double?

    @Option(
        help: ArgumentHelp(
            "Write one JSON line per frame shown: its presentation time and the monotonic host time it appeared.",
            valueName: "PATH"))
    var frameLog: String?

    @Flag(help: "No position line.")
    var quiet = false

    /// `--verbose`: also say what is played where, before playing.
    @OptionGroup var logging: VerboseOption
    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func validate() throws {
        guard (0...1).contains(volume) else { throw ValidationError("--volume must be 0…1") }
        guard (0.5...2).contains(rate) else { throw ValidationError("--rate must be 0.5…2") }
        guard start >= 0 else { throw ValidationError("--start must be 0 or more") }
        guard duration.map({ $0 > 0 }) ?? true else { throw ValidationError("--duration must be more than 0") }
        guard !(noDisplay && noAudio) else {
            throw ValidationError("--no-display and --no-audio leave nothing to play")
        }
    }

    func run() throws {
        Interrupt.install()
        let keys = WindowKeys()
        let log = try frameLog.map { try FrameLog(path: $0) }
        let closed = StopSignal()
        let video = noDisplay ? nil : Self.window(file: file, keys: keys, closed: closed, log: log)
        // The file first: a missing or unreadable one is named as such, not as a device that cannot be
        // reached (the output connects to PulseAudio when it is made).
        _ = try ContainerDemuxer(path: file)
        let audio = noAudio ? nil : try AudioPlayerOutput.device(device, latency: .milliseconds(200))
        let player = try MediaPlayer(path: file, audio: audio, video: video)
        if logging.verbose && !quiet {
            printError(
                "media-player: \(file) (\(formatDecimal(player.duration, 3)) s): "
                    + "\(player.videoFormat.map { "video \($0.width)x\($0.height)" } ?? "no video"), "
                    + "\(player.audioFormat.map { "audio \($0.sampleRate) Hz" } ?? "no audio") → \(device ?? "the default output")"
            )
        }
        player.volume = volume
        player.rate = rate
        player.numberOfLoops = loop ? -1 : loops
        if start > 0 { try player.seek(to: start) }
        let outcome = MediaPlayerOutcome()
        player.onEvent = { outcome.take($0) }
        let terminal = KeyReader.attach()
        defer { terminal?.detach() }
        try player.play()
        let began = Date()
        var quit = false
        while !outcome.isFinished && !quit {
            if Interrupt.wasRequested || duration.map({ Date().timeIntervalSince(began) >= $0 }) == true {
                player.stop()
                break
            }
            for key in keys.take() + (terminal?.read().map { [Self.windowKey($0)] } ?? []) {
                switch key {
                case .space: if player.isPlaying { player.pause() } else { try player.play() }
                case .left, .right, .up, .down:
                    let step: Double = key == .left ? -10 : key == .right ? 10 : key == .up ? 60 : -60
                    try player.seek(to: player.currentTime + step, mode: keyframeSeeks ? .keyframe : .exact)
                case .character("q"), .escape: quit = true
                default: break
                }
            }
            if closed.isRequested { quit = true }
            if quit {
                player.stop()
                break
            }
            if !quiet {
                printErrorInPlace(
                    String(format: "%7.2f / %.2f s", player.currentTime, player.duration)
                        + (player.isPlaying ? "  " : "  paused"))
            }
            usleep(20_000)
        }
        if !quiet { printError("") }
        try log?.close()
        if let error = outcome.error { throw error }
        if !quiet {
            printError(
                "media-player: \(outcome.summary)"
                    + (log.map { ", \(count: $0.count, "frame") shown" } ?? ""))
        }
        if Interrupt.wasRequested { throw ExitCode(130) }
    }

    /// The window: a preview paced by the player's clock, its keys to `keys`, its closing to `closed`.
    static func window(file: String, keys: WindowKeys, closed: StopSignal, log: FrameLog?) -> MediaPlayer.VideoOutput {
        .presenting { clock in
            var observer: (@Sendable (MediaTime, MediaTime) -> Void)?
            if let log { observer = { time, host in log.add(time, host, clock: clock()) } }
            let shown = observer
            let sink: any PresentingSink = try VideoPreviewSink(
                title: "media-player: \(file)", pacing: .custom(now: clock), whenClosed: .stop(closed),
                queueCapacity: 12, onKey: { keys.add($0) }, onFrameShown: shown)
            return sink
        }
    }

    /// A terminal key as the window's key.
    static func windowKey(_ key: KeyReader.Key) -> VideoPreviewSink.Key {
        switch key {
        case .togglePause: .space
        case .seek(let by): by < 0 ? .left : .right
        case .quit: .character("q")
        }
    }
}
