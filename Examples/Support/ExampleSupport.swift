// What the example executables share: one-line errors on standard error, number formatting without
// Foundation, and the top-level error handling. (Their command lines are on swift-argument-parser:
// Command.swift.)
#if canImport(Glibc)
    import Glibc
#endif
public import MediaCore

/// Writes one line to standard error (Glibc's `stderr` is a mutable C global, which Swift 6 refuses).
public func printError(_ text: String) {
    let line = text + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

/// Writes `text` to standard error without a newline (for a progress line redrawn with `\r`).
public func printErrorInPlace(_ text: String) {
    _ = text.withCString { write(2, $0, strlen($0)) }
}

/// `value` with `digits` decimals, without Foundation: `formatDecimal(2.5, 3)` is `"2.500"`.
public func formatDecimal(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
        if digits == 0 { text = String(text[..<dot]) }
    }
    return text
}

/// The size in bytes of the file at `path`, as the examples' summaries report what they wrote, or
/// `nil` when it cannot be read (`stat` fails).
public func fileSize(_ path: String) -> Int64? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int64(info.st_size)
}

/// Runs an example's `body` and exits with its status (or prints the licence report and exits 0 for
/// `--licence`, see ``exitIfLicenceRequested(_:)``); any error becomes one line `<name>: <error>` on
/// standard error and exit status 1.
public func runExample(_ name: String, _ body: () throws -> Int32) -> Never {
    exitIfLicenceRequested()
    do {
        exit(try body())
    } catch is Interrupt.Stopped {
        exit(130)
    } catch let error as MediaError {
        printError("\(name): \(error)")
        exit(1)
    } catch {
        printError("\(name): \(error)")
        exit(1)
    }
}

/// The progress line and timing of an example's run: at most two lines a second on standard error,
/// redrawn in place on a terminal, and the wall time for the summary.
public final class ProgressReporter {
    private let name: String
    private let verb: String
    private let enabled: Bool
    private let interactive = isatty(2) != 0
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var lastReport: ContinuousClock.Instant

    /// A reporter printing `<name>: <seconds> s <verb>, <packets> packets` when `enabled`.
    public init(name: String, verb: String, enabled: Bool) {
        self.name = name
        self.verb = verb
        self.enabled = enabled
        started = clock.now
        lastReport = started
    }

    /// Reports `progress` if half a second has passed since the last line.
    public func report(_ progress: Pipeline.Progress) {
        report(position: progress.position, packets: progress.samplesWritten)
    }

    private func report(position: MediaTime, packets: Int64) {
        guard enabled else { return }
        let now = clock.now
        guard now - lastReport >= .milliseconds(500) else { return }
        lastReport = now
        let seconds = position.seconds ?? 0
        let line = "\(name): \(formatDecimal(seconds, 1)) s \(verb), \(count: packets, "packet")"
        if interactive {
            printErrorInPlace("\r" + line + "\u{1B}[K")
        } else {
            printError(line)
        }
    }

    /// Reports `progress` (as ``report(_:)-(Pipeline.Progress)``), then ends the run if Ctrl-C was
    /// pressed: the pipeline finishes its sink, so the file stays valid, and the example exits 130.
    /// Call ``Interrupt/install()`` before the run.
    public func reportUntilInterrupted(_ progress: Pipeline.Progress) throws {
        report(progress)
        try Interrupt.check()
    }

    /// Reports a graph's `progress` (position: the furthest-behind branch; packets: all sinks') if half
    /// a second has passed since the last line.
    public func report(_ progress: MediaGraph.Progress) {
        report(position: progress.position, packets: progress.sinks.reduce(0) { $0 + $1.samplesWritten })
    }

    /// Ends the redrawn line (if one was drawn) and returns the seconds since the reporter was made.
    public func finish() -> Double {
        if enabled && interactive && lastReport != started { printError("") }
        let elapsed = clock.now - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
