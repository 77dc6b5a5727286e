public import Testing

extension Tag {
    /// A suite that runs programs under valgrind's memcheck. A run costs about 8 s of valgrind's start-up
    /// here (FFmpeg's hundred shared libraries, instrumented), so `make test` skips these suites and CI runs
    /// them in a phase of their own (`make memcheck`, part of `make gates`). Put it on the top-level
    /// `@Suite` line: `Scripts/test-suites.py valgrind` builds that phase's filter from those lines.
    @Tag public static var valgrind: Self
}

/// The check that keeps the valgrind tag honest: a test that starts valgrind calls ``require()``, which
/// records an issue when its suite is not tagged ``Testing/Tag/valgrind``, so such a suite cannot slip
/// into `make test`'s run unnoticed.
public enum ValgrindCheck {
    /// Records an issue if the current test is not tagged ``Testing/Tag/valgrind``. Outside a test it
    /// does nothing.
    public static func require() {
        guard let test = Test.current, !test.tags.contains(.valgrind) else { return }
        Issue.record(
            """
            \(test.name) runs valgrind, but its suite is not tagged .valgrind: add `.tags(.valgrind)` to its \
            @Suite so that `make memcheck` runs it and `make test` does not
            """, sourceLocation: test.sourceLocation)
    }
}
