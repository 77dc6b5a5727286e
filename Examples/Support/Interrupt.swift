// Ctrl-C (SIGINT) in an example: finish the files, then exit 130, as the ffmpeg CLI does with `q`.
#if canImport(Glibc)
    import Glibc
#endif
public import MediaCore

/// Turns SIGINT into a clean stop: the first Ctrl-C requests ``signal`` (the run drains its stages and
/// finishes every file), a second one exits at once with status 130.
public enum Interrupt {
    /// The stop that Ctrl-C requests.
    public static let signal = StopSignal()

    /// Installs the SIGINT handler. The handler only stores to atomics (``StopSignal/request()``), which
    /// is safe in a signal handler; `signal` is created here, before the handler can run.
    public static func install() {
        _ = signal
        // A parent may have started us with SIGINT blocked (the mask is inherited): unblock it here, on
        // the main thread, before any other thread starts and inherits this thread's mask.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigprocmask(SIG_UNBLOCK, &set, nil)
        Glibc.signal(SIGINT) { _ in
            if Interrupt.signal.isRequested { _exit(130) }
            Interrupt.signal.request()
        }
    }

    /// Requested by SIGTERM once ``installTermination()`` has run: the stop was a service manager's, and
    /// the program ends with status 0 when it has finished cleanly.
    public static let termination = StopSignal()

    /// Makes SIGTERM (a service manager's stop, `kill`) request ``signal`` too, as Ctrl-C does, and
    /// ``termination``; a second one exits at once with status 143. For the examples that run as servers.
    public static func installTermination() {
        _ = signal
        _ = termination
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigprocmask(SIG_UNBLOCK, &set, nil)
        Glibc.signal(SIGTERM) { _ in
            if Interrupt.signal.isRequested { _exit(143) }
            Interrupt.termination.request()
            Interrupt.signal.request()
        }
    }

    /// Whether Ctrl-C was pressed.
    public static var wasRequested: Bool { signal.isRequested }

    /// The error a progress callback throws to end a ``Pipeline`` run when Ctrl-C was pressed: the
    /// pipeline then drains its stages and finishes its sink, as a ``MediaGraph`` does for a stop.
    public struct Stopped: Error, CustomStringConvertible {
        /// "interrupted".
        public var description: String { "interrupted" }
    }

    /// Throws ``Stopped`` once Ctrl-C was pressed: call it from a pipeline's progress callback.
    public static func check() throws(Stopped) {
        if signal.isRequested { throw Stopped() }
    }
}
