import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// A link slower than the stream: a TCP receiver of the test's own reading about 16 KB/s, a 0.5 s
/// queue. The queue stays within its limit, video is dropped in whole GOPs and counted, audio arrives
/// intact.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .serialized, .ffmpegLeakGate) struct StreamingThrottledTests {
    @Test func slowLinkDropsWholeGOPsKeepsAudio() async throws {
        let dir = try TemporaryDirectory()
        let port = try StreamingSupport.freePort()
        let receiver = try SlowTCPReceiver(port: port, chunk: 1316, interval: 0.08)
        receiver.start(timeout: 30)
        let limit = MediaTime(value: 1, timescale: 2)
        let keyint = 10
        let stats = try await StreamingSupport.stream(
            to: "tcp://127.0.0.1:\(port)", protocolOptions: ["send_buffer_size": "4096"], keyint: keyint,
            videoBitRate: 600_000, audioBitRate: 32_000, maxQueue: limit)
        let (ended, data) = receiver.waitForEnd(timeout: 20)
        #expect(ended, "the slow receiver did not see the end of the stream")
        try data.write(to: URL(fileURLWithPath: dir.file("got.ts")))

        #expect(stats.droppedFrames > 0, "the link was not slow enough to drop: \(stats)")
        #expect(stats.maxQueueSeconds <= 0.5, "\(stats)")
        #expect(
            stats.sentVideoFrames + stats.droppedFrames == StreamingSupport.fps * StreamingSupport.seconds, "\(stats)")
        #expect(stats.sentAudioFrames >= StreamingSupport.seconds * 48_000 / 1024, "\(stats)")

        // What arrived: every audio frame; video frames whose gaps all end on a keyframe (whole GOPs).
        let json = try ExternalTool.ffprobeJSON(
            dir.file("got.ts"), ["-show_entries", "packet=codec_type,pts_time,flags"])
        let packets = try #require(json["packets"] as? [[String: Any]])
        let audio = packets.filter { $0["codec_type"] as? String == "audio" }
        let video = packets.filter { $0["codec_type"] as? String == "video" }.compactMap {
            packet -> (index: Int, key: Bool)? in
            guard let time = Double(packet["pts_time"] as? String ?? "") else { return nil }
            return (
                Int((time * Double(StreamingSupport.fps)).rounded()), (packet["flags"] as? String ?? "").hasPrefix("K")
            )
        }
        #expect(
            audio.count == stats.sentAudioFrames, "audio packets received \(audio.count), sent \(stats.sentAudioFrames)"
        )
        #expect(
            video.count == stats.sentVideoFrames, "video packets received \(video.count), sent \(stats.sentVideoFrames)"
        )
        #expect(video.first?.key == true)
        for (previous, next) in zip(video, video.dropFirst()) where next.index != previous.index + 1 {
            #expect(next.key, "video resumes at frame \(next.index) (after \(previous.index)) without a keyframe")
        }
    }
}
