public import Foundation

/// A private, headless PulseAudio daemon for one test: its own temporary `HOME`, `XDG_RUNTIME_DIR`
/// (mode 0700) and `XDG_CONFIG_HOME`, no default script (`-n`), no D-Bus, a native-protocol socket in
/// its own folder, and one null sink, `test` (48 kHz stereo), whose monitor `test.monitor` records
/// what is played into it. Starting one takes a few hundredths of a second, so each test may start
/// its own and tests run in parallel.
///
/// ```swift
/// let daemon = try PulseDaemon()
/// let pulse = try PulseConnection(server: daemon.server)
/// try daemon.run("paplay", ["--device=test", "tone.wav"])     // PULSE_SERVER points at the daemon
/// ```
///
/// ``stop()`` (or releasing the value) kills the daemon, waits for it and removes its folder.
public final class PulseDaemon: @unchecked Sendable {
    // Sendable: every stored property is an immutable `let` of a Sendable type.
    private let process: ChildProcess

    /// The daemon's folder (removed by ``stop()``).
    public let folder: String
    /// The server string for libpulse and ``PulseConnection``: `unix:<folder>/run/native`.
    public let server: String
    /// An environment for PulseAudio's tools (`paplay`, `parecord`, `pactl`): this process's, with
    /// `PULSE_SERVER` set to ``server`` and the daemon's `HOME` and `XDG_RUNTIME_DIR`.
    public let environment: [String: String]
    /// The name of the null sink.
    public let sinkName = "test"
    /// The name of the null sink's monitor source.
    public var monitorName: String { sinkName + ".monitor" }

    /// The null sink's sample rate (its monitor's too).
    public let sampleRate: Int

    /// Starts a daemon whose null sink runs at `sampleRate` (stereo) and waits (at most `timeout`) until its
    /// socket accepts connections.
    public init(sampleRate: Int = 48_000, timeout: TimeInterval = 5) throws {
        RealTimeCheck.require("a PulseAudio daemon")
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("mediapipeline-pulse")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        self.sampleRate = sampleRate
        folder = base.appendingPathComponent(String(UUID().uuidString.prefix(8))).path
        for sub in ["", "/home", "/run", "/config"] {
            try FileManager.default.createDirectory(
                atPath: folder + sub, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let socket = folder + "/run/native"
        server = "unix:" + socket
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = folder + "/home"
        environment["XDG_RUNTIME_DIR"] = folder + "/run"
        environment["XDG_CONFIG_HOME"] = folder + "/config"
        environment["PULSE_SERVER"] = server
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        self.environment = environment

        process = try ChildProcess(
            "pulseaudio",
            [
                "-n", "--daemonize=no", "--exit-idle-time=-1", "--system=false", "--disallow-exit",
                "--use-pid-file=no", "--disable-shm=no", "--log-target=stderr", "--log-level=error",
                "--load=module-native-protocol-unix socket=\(socket) auth-anonymous=1",
                "--load=module-null-sink sink_name=test rate=\(sampleRate) channels=2",
                "--load=module-always-sink"
            ], environment: environment, outputBase: folder + "/daemon")
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !Self.accepts(socket) {
            if let status = process.exitStatus {
                let log = process.result.stderr
                stop()
                throw ExternalTool.Failure(description: "pulseaudio exited with status \(status): \(log.suffix(2000))")
            }
            guard Date() < deadline else {
                stop()
                throw ExternalTool.Failure(description: "pulseaudio did not open \(socket) within \(timeout) s")
            }
            usleep(5_000)
        }
    }

    deinit { stop() }

    /// Kills the daemon (SIGTERM, then SIGKILL after a second), waits for it, removes its folder.
    /// Calling it again does nothing more.
    public func stop() {
        process.kill()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Whether a client can connect to the Unix socket at `path` now.
    private static func accepts(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}
