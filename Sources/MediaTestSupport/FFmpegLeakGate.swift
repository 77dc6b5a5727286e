import Foundation
public import Testing
import MediaFFmpeg

/// The leak gate: when the environment sets ``FFmpegLeakGate/variable`` to `1`, every test of a suite
/// carrying ``Testing/Trait/ffmpegLeakGate`` fails unless `FFmpegResources.liveCount` is back at its value
/// from before the test when the test ends (thrown error or not).
///
/// The count is process-wide, so it only means something when nothing else runs in the process: the
/// Makefile sets the variable for runs with `--no-parallel` only (`make leak-check`, and the live tests of
/// `make test`). Without the variable the trait does nothing. Objects a graph releases on its own threads
/// just after `run()` returns are given up to ``FFmpegLeakGate/grace`` to go before the test fails.
public struct FFmpegLeakGate: SuiteTrait, TestTrait, TestScoping {
    /// The environment variable that turns the gate on (`1`).
    public static let variable = "MEDIAPIPELINE_LEAK_GATE"
    /// How long the count may take to come back after the test's body returned.
    public static let grace: Duration = .seconds(2)

    /// Whether the environment turned the gate on.
    public static var isEnabled: Bool { ProcessInfo.processInfo.environment[variable] == "1" }

    /// Applied to every test of the suite and of the suites nested in it.
    public var isRecursive: Bool { true }

    /// A scope around each test case (not around suites), when the gate is on.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase != nil && Self.isEnabled ? self : nil
    }

    /// Runs the test, then records an issue if FFmpeg objects it created are still alive.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let before = FFmpegResources.liveCount
        do {
            try await function()
        } catch {
            await check(before, test)
            throw error
        }
        await check(before, test)
    }

    private func check(_ before: Int, _ test: Test) async {
        let clock = ContinuousClock()
        let deadline = clock.now + Self.grace
        var after = FFmpegResources.liveCount
        while after != before && clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
            after = FFmpegResources.liveCount
        }
        if after != before {
            Issue.record(
                "Leak gate: FFmpegResources.liveCount was \(before) before \(test.name) and \(after) after it",
                sourceLocation: test.sourceLocation)
        }
    }
}

extension Trait where Self == FFmpegLeakGate {
    /// Fails each test of the suite that leaves FFmpeg objects alive, in a run where the gate is on
    /// (see ``FFmpegLeakGate``).
    public static var ffmpegLeakGate: Self { FFmpegLeakGate() }
}
