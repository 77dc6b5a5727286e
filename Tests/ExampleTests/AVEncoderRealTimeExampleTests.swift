import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `av-encoder --realtime` interrupted: the one `av-encoder` test that paces its input in real time, so it
/// runs in the live run (``AVEncoderExampleTests`` has the others).
@Suite(.tags(.realTime), .timeLimit(.minutes(3)), .ffmpegLeakGate) struct AVEncoderRealTimeExampleTests {
    /// SIGINT during a 60-s real-time fragmented MP4 write, once its first fragments are on disk: the
    /// example exits 130 and ffprobe reads and ffmpeg decodes what was written.
    @Test func interruptLeavesAPlayableFragmentedMP4() throws {
        RealTimeCheck.require("av-encoder --realtime")
        let dir = try TemporaryDirectory()
        let path = dir.file("live.mp4")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: AVEncoderExampleTests.encoder)
        process.arguments = [
            "--pattern", "--size", "320x240", "--tone", "440", "--duration", "60", "--realtime", "--fragmented",
            "--keyint", "30", "--preset", "ultrafast", "--output", path, "-q"
        ]
        try process.run()
        // Interrupted once it has written more than its header: fragments (a moof) are in the file.
        try waitUntil("av-encoder to write its first fragments", every: .milliseconds(50)) {
            (try? Data(contentsOf: URL(fileURLWithPath: path)))?.range(of: Data("moof".utf8)) != nil
                || !process.isRunning
        }
        #expect(process.isRunning, "the 60 s realtime encode ended early")
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        let streams = try AVEncoderExampleTests.streams(path)
        #expect(streams.count == 2)
        let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
        let packets = try #require(AVEncoderExampleTests.number(video["nb_read_packets"]))
        // At least the first GOP (one fragment), and fewer than the 60 s at 30 fps it was asked for.
        #expect(packets >= 30 && packets < 1_800, "\(packets) video packets")
        try AVEncoderExampleTests.expectStrictDecode(path)
    }
}
