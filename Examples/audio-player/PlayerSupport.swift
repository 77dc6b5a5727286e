import Foundation
import MediaPipeline
import Synchronization

/// What the player reported, read by the main thread.
final class PlayerOutcome: Sendable {
    private let state = Mutex<(finished: Bool, error: MediaError?)>((false, nil))

    func take(_ event: AudioPlayerEvent) {
        state.withLock { s in
            switch event {
            case .finished: s.finished = true
            case .decodeError(let error): s.error = error
            }
        }
    }

    var isFinished: Bool { state.withLock { $0.finished } }
    var error: MediaError? { state.withLock { $0.error } }
}

/// A level bar over −60…0 dBFS: `#` to the average, `=` to the peak.
enum LevelLine {
    static func draw(_ peak: Float, _ average: Float, width: Int = 30) -> String {
        func cells(_ db: Float) -> Int { max(0, min(width, Int(((db + 60) / 60 * Float(width)).rounded()))) }
        let a = cells(average), p = max(a, cells(peak))
        return "[" + String(repeating: "#", count: a) + String(repeating: "=", count: p - a)
            + String(repeating: " ", count: width - p) + "]"
    }
}

/// Keys from a terminal in raw mode (no echo, no line buffering), restored on ``detach()``.
final class KeyReader {
    enum Key { case togglePause, seek(Double), quit }

    private var saved = termios()

    /// Raw mode on standard input, or `nil` when it is not a terminal.
    static func attach() -> KeyReader? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        let reader = KeyReader()
        tcgetattr(STDIN_FILENO, &reader.saved)
        var raw = reader.saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        return reader
    }

    func detach() { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }

    /// The next key pressed, without waiting; `nil` when none.
    func read() -> Key? {
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
