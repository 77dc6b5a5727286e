import Foundation
import MediaTestSupport
import Testing

/// `try await graph.run()` written in top-level code resolves to the async run, not to a synchronous
/// one (in a `main.swift`, Swift ranks a synchronous overload above an `async` one): the snippet
/// program `TopLevelAsyncRun` ends only if the main actor stays free while its graph runs.
@Suite(.timeLimit(.minutes(1))) struct TopLevelAsyncRunTests {
    @Test func theAsyncRunLeavesTheMainActorFree() throws {
        let result = try ExternalTool.run("timeout", ["20", TestPaths.executable("TopLevelAsyncRun")])
        #expect(
            result.status == 0, "exit \(result.status) (124: it hung, the main actor was blocked): \(result.stderr)")
        #expect(result.output.hasPrefix("main actor free: the graph read "))
    }
}
