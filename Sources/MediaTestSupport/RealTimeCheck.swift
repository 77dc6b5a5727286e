public import Testing

extension Tag {
    /// A suite that waits on real time: it plays or records through a PulseAudio daemon, paces media at
    /// its real rate (`--realtime`, a live stream) or talks to a streaming server. `make test` runs these
    /// suites by themselves, one at a time, beside the parallel run of the others (which runs at a lower
    /// CPU priority), because on two cores parallel encoders and judges can starve a real-time stream
    /// into underruns and its waits into timeouts. Put it on the top-level `@Suite` line:
    /// `Scripts/test-suites.py realtime` builds the live run's filter from those lines.
    @Tag public static var realTime: Self
}

/// The check that keeps the real-time tag honest: whatever starts something that runs in real time
/// (``PulseDaemon``, a streaming server, an example with `--realtime`) calls ``require(_:)``, which
/// records an issue when the running test's suite is not tagged ``Testing/Tag/realTime``. So a new
/// real-time suite cannot slip into the parallel run untagged: its first run fails and says why.
public enum RealTimeCheck {
    /// Records an issue if the current test is not tagged ``Testing/Tag/realTime``; `what` names what
    /// was started. The issue points at the test. Outside a test (a helper program) it does nothing.
    public static func require(_ what: String) {
        guard let test = Test.current, !test.tags.contains(.realTime) else { return }
        Issue.record(
            """
            \(test.name) starts \(what), which runs in real time, but its suite is not tagged .realTime: \
            add `.tags(.realTime)` to its @Suite so that `make test` runs it in the live run
            """, sourceLocation: test.sourceLocation)
    }
}
