public import Foundation

/// A child process started with `posix_spawnp` and reaped with `waitpid(WNOHANG)`, its standard
/// output and error going to files: for tools that run in the background during a test (a PulseAudio
/// daemon, `paplay`, `parecord`).
///
/// Foundation's `Process` is not used for these: on Linux its exit monitor blocks in `wait4` on a
/// child that is still running when another child exits, so a long-running child (a daemon) makes
/// every later `waitUntilExit` in the process hang.
public final class ChildProcess: @unchecked Sendable {
    // Sendable: `pid` and the paths are immutable; `status` is only read or written under `lock`.
    /// The child's process id.
    public let pid: pid_t
    private let outPath: String
    private let errPath: String
    private let lock = NSLock()
    private var status: Int32?

    /// Starts `tool` (looked up on `PATH`) with `arguments` and `environment`; its output goes to
    /// `<outputBase>.out` and `<outputBase>.err`. Its standard input is `/dev/null`, or the file at
    /// `standardInput` (a FIFO made with `mkfifo`, for commands written while it runs: open it first
    /// with `FileHandle(forUpdatingAtPath:)`, whose read-write open does not wait for a reader, or the
    /// child's open, and with it `posix_spawn`, waits for a writer forever).
    public init(
        _ tool: String, _ arguments: [String], environment: [String: String], outputBase: String,
        standardInput: String? = nil
    ) throws {
        outPath = outputBase + ".out"
        errPath = outputBase + ".err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, standardInput ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Nothing else is inherited: a long-running child holding the write end of another test's
        // pipe (ExternalTool's, to sox or ffmpeg) would keep that test's read from ever seeing EOF.
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }
        let argv = ([tool] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // The child starts with no signal blocked and default handlers: posix_spawn would otherwise pass
        // on the calling thread's mask (test threads block SIGINT and SIGTERM), and the tool would
        // ignore the signals that tell it to stop.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var reset = sigset_t()
        sigemptyset(&reset)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGCHLD] { sigaddset(&reset, signal) }
        posix_spawnattr_setsigdefault(&attributes, &reset)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        var args = argv + [nil]
        var env = envp + [nil]
        let result = posix_spawnp(&child, tool, &actions, &attributes, &args, &env)
        guard result == 0 else {
            throw ExternalTool.Failure(description: "cannot start \(tool): \(String(cString: strerror(result)))")
        }
        pid = child
    }

    deinit { kill() }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), looked up at run time: Swift's
    /// Glibc module does not declare it (it is behind `_GNU_SOURCE`).
    private static let addCloseFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else { return nil }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

    /// The exit status once it has exited (reaping it), else `nil`.
    public var exitStatus: Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let status { return status }
        var raw: Int32 = 0
        let reaped = waitpid(pid, &raw, WNOHANG)
        if reaped == pid {
            // WIFEXITED: low 7 bits 0 → exit code in bits 8-15; otherwise 128 + the signal.
            status = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
        } else if reaped < 0 && errno == ECHILD {
            status = -1
        }
        return status
    }

    /// Whether it is still running.
    public var isRunning: Bool { exitStatus == nil }

    /// Waits until it exits, at most `timeout` seconds; `false` when it still runs.
    public func wait(timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while isRunning {
            guard Date() < deadline else { return false }
            usleep(2_000)
        }
        return true
    }

    /// Sends `signal` (default SIGINT, on which `parecord` finishes its file) if it still runs.
    public func signal(_ signal: Int32 = SIGINT) {
        if isRunning { Foundation.kill(pid, signal) }
    }

    /// SIGTERM, then SIGKILL after `grace` seconds; waits for it.
    public func kill(grace: TimeInterval = 1) {
        guard isRunning else { return }
        Foundation.kill(pid, SIGTERM)
        if !wait(timeout: grace) {
            Foundation.kill(pid, SIGKILL)
            _ = wait(timeout: 5)
        }
    }

    /// Its exit status (-1 while running) and what it printed so far.
    public var result: ExternalTool.Result {
        ExternalTool.Result(
            status: exitStatus ?? -1,
            stdout: FileManager.default.contents(atPath: outPath) ?? Data(),
            stderr: String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self))
    }
}
