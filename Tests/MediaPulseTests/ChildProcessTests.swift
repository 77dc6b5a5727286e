import Foundation
import MediaTestSupport
import Testing

/// The fixture's child processes: they inherit no descriptor but the three standard ones (so a
/// long-running daemon cannot hold another test's pipe open), and they stop on SIGINT.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ChildProcessTests {
    @Test func inheritsOnlyTheStandardStreams() throws {
        let folder = try TemporaryDirectory()
        let pipe = Pipe()  // open descriptors ≥ 3 in this process
        defer { try? pipe.fileHandleForWriting.close() }
        let child = try ChildProcess(
            "ls", ["/proc/self/fd"], environment: ProcessInfo.processInfo.environment, outputBase: folder.file("ls"))
        #expect(child.wait(timeout: 5))
        let descriptors = child.result.output.split(separator: "\n").compactMap { Int($0) }
        #expect(descriptors.contains(0) && descriptors.contains(1) && descriptors.contains(2))
        #expect(descriptors.filter { $0 > 3 }.isEmpty)  // 3 is ls's own directory handle
    }

    @Test func stopsOnSIGINT() throws {
        let folder = try TemporaryDirectory()
        let child = try ChildProcess(
            "sleep", ["30"], environment: ProcessInfo.processInfo.environment, outputBase: folder.file("sleep"))
        #expect(child.isRunning)
        child.signal(SIGINT)
        #expect(child.wait(timeout: 2))
        #expect(child.result.status == 128 + SIGINT)
    }
}
