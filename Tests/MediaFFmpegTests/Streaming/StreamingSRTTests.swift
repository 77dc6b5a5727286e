import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// MPEG-TS over SRT (caller, with latency in the URL's query) to ffmpeg's SRT listener on 127.0.0.1.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .serialized, .ffmpegLeakGate) struct StreamingSRTTests {
    @Test func srtToFFmpegListenerArrivesWhole() async throws {
        let dir = try TemporaryDirectory()
        let port = try StreamingSupport.freePort()
        let receiver = try ChildProcess(
            "ffmpeg",
            [
                "-nostdin", "-y", "-v", "error", "-i", "srt://127.0.0.1:\(port)?mode=listener", "-c", "copy", "-f",
                "mpegts", dir.file("got.ts")
            ],
            environment: ProcessInfo.processInfo.environment, outputBase: dir.file("ffmpeg"))
        defer { receiver.kill() }
        let stats = try await StreamingSupport.stream(to: "srt://127.0.0.1:\(port)?mode=caller&latency=120000")
        #expect(receiver.wait(timeout: 10), "the receiver did not see the end of the stream")
        StreamingSupport.expectComplete(try StreamingSupport.probe(dir.file("got.ts")), stats, "srt")
    }
}

extension StreamingSRTTests {
    /// A passphrase in both URLs (the caller's options ride in the query): the stream arrives
    /// encrypted and decrypted, whole.
    @Test func srtWithPassphraseArrivesWhole() async throws {
        let dir = try TemporaryDirectory()
        let port = try StreamingSupport.freePort()
        let secret = "loopback-only-secret"
        let receiver = try ChildProcess(
            "ffmpeg",
            [
                "-nostdin", "-y", "-v", "error", "-i", "srt://127.0.0.1:\(port)?mode=listener&passphrase=\(secret)",
                "-c", "copy", "-f", "mpegts", dir.file("got.ts")
            ],
            environment: ProcessInfo.processInfo.environment, outputBase: dir.file("ffmpeg"))
        defer { receiver.kill() }
        let stats = try await StreamingSupport.stream(to: "srt://127.0.0.1:\(port)?mode=caller&passphrase=\(secret)")
        #expect(receiver.wait(timeout: 10), "the receiver did not see the end of the stream")
        StreamingSupport.expectComplete(try StreamingSupport.probe(dir.file("got.ts")), stats, "srt with passphrase")
    }
}
