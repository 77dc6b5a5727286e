#if canImport(Glibc)
    import Glibc
#endif

/// Keys from a terminal in raw mode (no echo, no line buffering), restored on ``detach()``.
public final class KeyReader {
    /// What a key asks for.
    public enum Key: Sendable, Equatable {
        /// Space: pause or resume.
        case togglePause
        /// An arrow: seek by this many seconds (→ +5, ← −5).
        case seek(Double)
        /// `q`: stop.
        case quit
    }

    private var saved = termios()

    /// Raw mode on standard input, or `nil` when it is not a terminal.
    public static func attach() -> KeyReader? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        let reader = KeyReader()
        tcgetattr(STDIN_FILENO, &reader.saved)
        var raw = reader.saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        return reader
    }

    /// Restores the terminal as it was.
    public func detach() { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }

    /// The next key pressed, without waiting; `nil` when none.
    public func read() -> Key? {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 8)
        let count = Glibc.read(STDIN_FILENO, &bytes, bytes.count)
        guard count > 0 else { return nil }
        switch Array(bytes[0..<count]) {
        case [0x20]: return .togglePause
        case [0x1B, 0x5B, 0x43]: return .seek(5)  // →
        case [0x1B, 0x5B, 0x44]: return .seek(-5)  // ←
        case [0x71], [0x51]: return .quit
        default: return nil
        }
    }
}
