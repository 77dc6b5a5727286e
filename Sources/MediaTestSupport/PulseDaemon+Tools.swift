public import Foundation

extension PulseDaemon {
    /// Runs a PulseAudio tool (`pactl`, `paplay`, `parecord`) against this daemon and waits for it,
    /// at most `timeout` seconds (then kills it and throws).
    @discardableResult
    public func run(_ tool: String, _ arguments: [String], timeout: TimeInterval = 10) throws -> ExternalTool.Result {
        let child = try spawn(tool, arguments)
        guard child.wait(timeout: timeout) else {
            child.kill()
            throw ExternalTool.Failure(
                description: "\(tool) \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
        }
        let result = child.result
        guard result.status == 0 else {
            throw ExternalTool.Failure(
                description:
                    "\(tool) \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr.suffix(2000))"
            )
        }
        return result
    }

    /// Starts a PulseAudio tool (or any program, by name or path) against this daemon in the background.
    public func spawn(_ tool: String, _ arguments: [String]) throws -> ChildProcess {
        let name = tool.split(separator: "/").last.map(String.init) ?? tool
        return try ChildProcess(
            tool, arguments, environment: environment, outputBase: folder + "/\(name)-\(UUID().uuidString.prefix(8))")
    }

    /// How many record streams (source outputs) are connected now, from `pactl list short
    /// source-outputs`: a recorder such as `parecord` is recording once its stream appears.
    public func sourceOutputCount() throws -> Int {
        try run("pactl", ["list", "short", "source-outputs"]).output.split(separator: "\n").count
    }

    /// Unloads the null sink (`pactl unload-module module-null-sink`): its streams lose their device.
    public func unloadNullSink() throws {
        try run("pactl", ["unload-module", "module-null-sink"])
    }
}

/// `parecord` recording the daemon's null sink monitor (raw float32 stereo at the sink's rate) into a file: the
/// independent judge of what was heard, and a media clock that the server, not this process, runs.
public final class MonitorRecording: @unchecked Sendable {
    // Sendable: every stored property is an immutable `let` of a Sendable type.
    /// The raw file.
    public let path: String
    /// Frames a second: the daemon's ``PulseDaemon/sampleRate``.
    public let sampleRate: Int
    private let process: ChildProcess
    /// Taken before `parecord` started: no audio in the file is older than this.
    private let started = ContinuousClock.now

    /// Starts `parecord` on `daemon`'s monitor into `path` and waits until its record stream is up.
    public init(_ daemon: PulseDaemon, into path: String, timeout: Duration = .seconds(30)) throws {
        self.path = path
        sampleRate = daemon.sampleRate
        process = try daemon.spawn(
            "parecord",
            [
                "--device=\(daemon.monitorName)", "--raw", "--format=float32le", "--rate=\(daemon.sampleRate)",
                "--channels=2",
                "--latency-msec=20", path
            ])
        let process = process
        try waitUntil("parecord's record stream to appear", timeout: timeout) {
            guard process.isRunning else {
                throw ExternalTool.Failure(description: "parecord exited: \(process.result.stderr.suffix(2000))")
            }
            return try daemon.sourceOutputCount() > 0
        }
    }

    deinit { process.kill() }

    /// The frames in the file so far: how much the monitor has delivered to `parecord` (8 bytes a frame).
    /// Each reading also narrows down when the monitor's audio began (see ``waitFor(seconds:timeout:)``).
    public var frames: Int {
        let now = ContinuousClock.now, count = fileSize(path) / 8
        // No later than this: parecord lags, never leads.
        let begin = now - .seconds(Double(count) / Double(sampleRate))
        origin.withLock { if count > 0 { $0 = min($0 ?? begin, begin) } }
        return count
    }
    /// The earliest `now - frames/48 kHz` seen: when the monitor's first frame was played, give or take
    /// the smallest lag of `parecord` behind the server seen so far.
    private let origin = LockedBox<ContinuousClock.Instant?>(nil)

    /// Waits until `seconds` of the server's time have passed from now: until the file holds the audio
    /// the monitor played up to now plus `seconds`. Unlike a sleep, it does not stretch when this process
    /// is starved; unlike a count of new frames, it does not end early when `parecord` catches up a lag.
    public func waitFor(seconds: Double, timeout: Duration = .seconds(30)) throws {
        try waitUntil("the first audio from the monitor in \(path)", timeout: timeout) { frames > 0 }
        let end = ContinuousClock.now + .seconds(seconds)
        try waitUntil("\(seconds) s more of the monitor in \(path)", timeout: timeout) {
            let count = frames
            guard let origin = origin.value else { return false }
            return Double(count) / Double(sampleRate) >= (end - origin) / .seconds(1)
        }
    }

    /// Waits until the file covers everything the monitor played until now, plus `margin`; then stops
    /// `parecord` (SIGINT, so it finishes the file) and returns what it recorded, interleaved stereo.
    ///
    /// The monitor delivers audio at the server's real rate from the moment the stream starts (never
    /// before ``init(_:into:timeout:)`` began), so once the file holds as many frames as time has passed
    /// since then, plus the margin, it holds everything played up to now, however late `parecord` ran.
    public func stop(margin: Duration = .milliseconds(100), timeout: Duration = .seconds(30)) throws -> [Float] {
        let covered = (ContinuousClock.now - started) + margin
        let target = Int(covered / .seconds(1) * Double(sampleRate))
        try waitUntil("parecord to record what was played (\(target) frames in \(path))", timeout: timeout) {
            frames >= target
        }
        process.signal(SIGINT)
        try waitUntil("parecord to exit on SIGINT", timeout: timeout) { !process.isRunning }
        return RawAudio.floats(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
