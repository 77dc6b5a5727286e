import ExampleSupport
import Foundation
import MediaPipeline

/// `live-streamer`'s commands on standard input, one per line, acted on while the stream runs: what a
/// streaming app's buttons do (HaishinKit's record button, a second destination).
///
/// | command | effect |
/// | --- | --- |
/// | `record start PATH` | records the same encode to PATH (container from the extension), from a keyframe, starting at zero |
/// | `record stop [PATH]` | stops the recording at PATH (default: the last one started) and finishes the file |
/// | `output add URL` | streams to one more destination (a URL as `--to` takes, or an `.m3u8` path), from a keyframe |
/// | `output remove URL` | stops streaming to a destination added with `output add` |
/// | `gain main\|mix G` | sets an input's linear gain (0…16) in the `--mix-input` mix, ramped over 10 ms |
/// | `mute main\|mix`, `unmute main\|mix` | mutes or unmutes an input of the mix |
/// | `overlay text\|image\|pip X Y` | moves an overlay's top left corner to (X, Y) from the next frame |
/// | `overlay text\|image\|pip hide\|show` | hides or shows an overlay |
/// | `stats` | one JSON object on standard output: the `--stats-json` keys, with `recordings` and `outputs` |
/// | `quit` | ends the stream as the end of `--duration` would (exit 0) |
///
/// Each command answers with one line on standard error; a line that is not a command gets one error
/// line and is otherwise ignored. The end of standard input stops reading commands, not the stream.
/// Commands are read and acted on by one thread, so the state below needs no lock.
struct Commands {
    /// What a new destination or recording needs from the running stream.
    struct Context: Sendable {
        let run: MediaGraphRun
        let tracks: [MediaGraph.BranchID]
        let clock: MediaClock
        let keyframes: KeyframeRequest
        let maxQueueDuration: MediaTime
        let reconnect: Int
        let protocolOptions: [String: String]
        let hls: HLSOptions
        let quiet: Bool
        let quit: StopSignal
        let mainStats: LiveStreamSink.StatsSource
        /// The mixer's and the compositor's controls (`--mix-input`, `--pip`, `--overlay-…`).
        let fanIn: FanInControls
    }

    static let usage =
        "commands: record start PATH, record stop [PATH], output add URL, output remove URL, gain main|mix G, mute main|mix, unmute main|mix, overlay text|image|pip X Y, overlay text|image|pip hide|show, stats, quit"

    private let context: Context
    private var recordings: [(path: String, id: MediaGraph.SinkID)] = []
    private var outputs: [(url: String, id: MediaGraph.SinkID, stats: LiveStreamSink.StatsSource)] = []

    init(_ context: Context) { self.context = context }

    /// Reads commands from standard input on a thread of its own until its end.
    static func start(_ context: Context) {
        let thread = Thread {
            var commands = Commands(context)
            while let line = readLine() { commands.perform(line) }
        }
        thread.start()
    }

    /// Acts on one line.
    mutating func perform(_ line: String) {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let verb = words.first else { return }
        let argument = words.dropFirst(2).joined(separator: " ")
        switch (verb, words.count > 1 ? words[1] : "") {
        case ("record", "start") where !argument.isEmpty: startRecording(argument)
        case ("record", "stop"): stopRecording(argument.isEmpty ? nil : argument)
        case ("output", "add") where !argument.isEmpty: addOutput(argument)
        case ("output", "remove") where !argument.isEmpty: removeOutput(argument)
        case ("gain", _) where words.count == 3: setGain(words[1], words[2])
        case ("mute", _) where words.count == 2: mute(words[1], true)
        case ("unmute", _) where words.count == 2: mute(words[1], false)
        case ("overlay", _) where words.count == 4: moveOverlay(words[1], words[2], words[3])
        case ("overlay", _) where words.count == 3 && ["hide", "show"].contains(words[2]):
            showOverlay(words[1], words[2] == "show")
        case ("stats", ""): printStats()
        case ("quit", ""):
            say("quitting: the stream ends")
            context.quit.request()
        default: say("not a command: '\(line)' (\(Self.usage))")
        }
    }

    private func say(_ message: String) { printError("live-streamer: \(message)") }

    /// The mix input called `name`, or a message saying which exist.
    private func audioInput(_ name: String) -> AudioMixer.Controls? {
        if let controls = context.fanIn.audio[name] { return controls }
        say(
            context.fanIn.audio.isEmpty
                ? "no mix: give --mix-input to mix a second audio input" : "no mix input '\(name)' (main or mix)")
        return nil
    }

    /// The overlay called `name`, or a message saying which exist.
    private func overlay(_ name: String) -> VideoCompositor.Controls? {
        if let controls = context.fanIn.video[name] { return controls }
        let names = context.fanIn.video.keys.sorted().joined(separator: ", ")
        say(
            names.isEmpty
                ? "no overlays: give --overlay-text, --overlay-image or --pip" : "no overlay '\(name)' (\(names))")
        return nil
    }

    private func setGain(_ name: String, _ value: String) {
        guard let controls = audioInput(name) else { return }
        guard let gain = Double(value), (0...16).contains(gain) else {
            return say("gain must be 0...16, not '\(value)'")
        }
        controls.gain.value = gain
        say("\(name) gain \(value)")
    }

    private func mute(_ name: String, _ muted: Bool) {
        guard let controls = audioInput(name) else { return }
        controls.isMuted = muted
        say("\(name) \(muted ? "muted" : "unmuted")")
    }

    private func moveOverlay(_ name: String, _ x: String, _ y: String) {
        guard let controls = overlay(name) else { return }
        guard let left = Int(x), let top = Int(y), abs(left) <= 16_384, abs(top) <= 16_384 else {
            return say("overlay position must be two whole numbers of pixels, not '\(x) \(y)'")
        }
        controls.layout.x = left
        controls.layout.y = top
        say("\(name) at \(left),\(top)")
    }

    private func showOverlay(_ name: String, _ shown: Bool) {
        guard let controls = overlay(name) else { return }
        controls.layout.alpha = shown ? 1 : 0
        say("\(name) \(shown ? "shown" : "hidden")")
    }

    private mutating func startRecording(_ path: String) {
        guard !recordings.contains(where: { $0.path == path }) else { return say("already recording to \(path)") }
        do {
            let quiet = context.quiet
            let muxer = try ContainerMuxer(path: path)
            let id = try context.run.addSink(muxer, tracks: context.tracks) { result in
                guard !quiet else { return }
                switch result {
                case .success(let counts):
                    printError(
                        "live-streamer: recorded \(path) (\(count: Int(counts.samplesWritten), "sample"), \(count: Int(counts.bytesWritten), "byte"))"
                    )
                case .failure(let error): printError("live-streamer: recording to \(path) failed: \(error)")
                }
            }
            recordings.append((path, id))
            say("recording to \(path) from the next keyframe")
        } catch {
            say("cannot record to \(path): \(error)")
        }
    }

    private mutating func stopRecording(_ path: String?) {
        guard let index = path.map({ path in recordings.lastIndex { $0.path == path } }) ?? recordings.indices.last
        else {
            return say(path.map { "no recording to \($0) to stop" } ?? "no recording to stop")
        }
        let recording = recordings.remove(at: index)
        context.run.removeSink(recording.id)
        say("stopping the recording to \(recording.path)")
    }

    private mutating func addOutput(_ url: String) {
        guard !outputs.contains(where: { $0.url == url }) else { return say("already streaming to \(url)") }
        do {
            if !Destination.isHLS(url) { _ = try StreamingURL(url) }
            let events = EventPrinter(enabled: !context.quiet, destination: url)
            let sink = try Destination.sink(
                url, reconnect: context.reconnect, protocolOptions: context.protocolOptions, hls: context.hls,
                keyframes: context.keyframes, onEvent: events.print)
            let live = try LiveStreamSink(sink, clock: context.clock, maxQueueDuration: context.maxQueueDuration)
            let stats = live.statsSource
            let quiet = context.quiet
            // The run's times, not zero: the live queue measures latency on the shared clock.
            let id = try context.run.addSink(live, tracks: context.tracks, startsAtZero: false) { result in
                guard !quiet else { return }
                switch result {
                case .success: printError("live-streamer: \(url): \(LiveStreamer.summary(stats.current))")
                case .failure(let error): printError("live-streamer: streaming to \(url) failed: \(error)")
                }
            }
            outputs.append((url, id, stats))
            say("streaming to \(url) from the next keyframe")
        } catch {
            say("cannot stream to \(url): \(error)")
        }
    }

    private mutating func removeOutput(_ url: String) {
        guard let index = outputs.firstIndex(where: { $0.url == url }) else {
            let known = outputs.isEmpty ? "none was added" : "added: " + outputs.map(\.url).joined(separator: ", ")
            return say("no output \(url) to remove (\(known))")
        }
        let output = outputs.remove(at: index)
        context.run.removeSink(output.id)
        say("stopping the stream to \(url)")
    }

    /// The `--stats-json` object of the main destination, with `recordings` (path, samples, bytes) and
    /// `outputs` (url, sentBytes, sentFrames, droppedFrames, droppedWhileReconnecting) of those running.
    private func printStats() {
        let progress = context.run.progress
        let recordings = recordings.map { recording in
            let counts = progress.sinks[recording.id.index]
            return
                "{\"path\":\(Self.quoted(recording.path)),\"samples\":\(counts.samplesWritten),\"bytes\":\(counts.bytesWritten)}"
        }
        let outputs = outputs.map { output in
            let stats = output.stats.current
            return
                "{\"url\":\(Self.quoted(output.url)),\"sentBytes\":\(stats.sentBytes ?? 0),\"sentFrames\":\(stats.sentFrames),\"droppedFrames\":\(stats.droppedFrames),\"droppedWhileReconnecting\":\(stats.droppedWhileReconnecting)}"
        }
        var json = StatsPrinter.json(context.mainStats.current)
        json.removeLast()
        json +=
            ",\"recordings\":[\(recordings.joined(separator: ","))],\"outputs\":[\(outputs.joined(separator: ","))]}"
        FileHandle.standardOutput.write(Data((json + "\n").utf8))
        say("stats: \(self.recordings.count) recording(s), \(self.outputs.count) added output(s)")
    }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
