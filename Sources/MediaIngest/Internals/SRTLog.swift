import CSRT
import Glibc
import Logging
import MediaCore

/// libsrt's own log (why it refused a caller's handshake: a wrong passphrase, an unsupported version;
/// a connection lost), sent to the `Logger` of the last ``IngestServer`` that started an SRT listener
/// instead of standard error. libsrt's log is one per process, so this is too: its warnings become
/// `warning`s, its errors `error`s, prefixed `libsrt:`.
enum SRTLog {
    /// The logger libsrt's messages go to.
    private static let current = Locked<Logger?>(nil)

    /// Sends libsrt's messages (warnings and worse) to `logger` from now on.
    static func route(to logger: Logger) {
        let first = current.withLock { current -> Bool in
            defer { current = logger }
            return current == nil
        }
        guard first else { return }
        srt_setlogflags(
            SRT_LOGF_DISABLE_TIME | SRT_LOGF_DISABLE_THREADNAME | SRT_LOGF_DISABLE_SEVERITY | SRT_LOGF_DISABLE_EOL)
        srt_setloglevel(LOG_WARNING)
        srt_setloghandler(nil, srtLogHandler)
    }

    /// Logs one libsrt message.
    fileprivate static func log(level: Int32, _ message: String) {
        guard let logger = current.withLock({ $0 }) else { return }
        let text = message.trimmingCharacters(in: " :\n")
        if level <= LOG_ERR {
            logger.error("libsrt: \(text)")
        } else {
            logger.warning("libsrt: \(text)")
        }
    }
}

/// libsrt's log handler (called on libsrt's threads).
private func srtLogHandler(
    _ opaque: UnsafeMutableRawPointer?, _ level: Int32, _ file: UnsafePointer<CChar>?, _ line: Int32,
    _ area: UnsafePointer<CChar>?, _ message: UnsafePointer<CChar>?
) {
    guard let message else { return }
    SRTLog.log(level: level, String(cString: message))
}

extension String {
    /// The string without the given characters at either end.
    fileprivate func trimmingCharacters(in set: String) -> String {
        let drop = Set(set)
        var scalars = Substring(self)
        while let first = scalars.first, drop.contains(first) { scalars.removeFirst() }
        while let last = scalars.last, drop.contains(last) { scalars.removeLast() }
        return String(scalars)
    }
}
