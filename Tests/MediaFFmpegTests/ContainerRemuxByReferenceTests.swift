import MediaPipeline
import MediaTestSupport
import Testing

/// A remux through a threaded graph (`ContainerDemuxer` → `ContainerMuxer`, each stream on a thread of
/// its own, the muxer on another): the demuxer's samples borrow libavformat's packets, and the muxer
/// hands those buffers back to libavformat by reference, so a buffer may be let go of last on the
/// muxer's thread or the demuxer's. The packets written are those of `ffmpeg -c copy` (size, MD5 of the
/// bytes, pts, dts, flags), for Matroska and MP4. Run under ThreadSanitizer by `make sanitize-thread`.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ContainerRemuxByReferenceTests {
    @Test(arguments: [ContainerFormat.matroska, .mp4])
    func threadedRemuxWritesFFmpegsPackets(format: ContainerFormat) throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("in.mp4")
        try AVFixture.makeMP4(input, seconds: 4)
        let ext = format == .matroska ? "mkv" : "mp4"
        let ours = dir.file("ours.\(ext)")
        let theirs = dir.file("theirs.\(ext)")
        var graph = MediaGraph()
        let video = graph.addBranch(
            "video", source: try ContainerDemuxer.streamSource(path: input, stream: 0), stages: [])
        let audio = graph.addBranch(
            "audio", source: try ContainerDemuxer.streamSource(path: input, stream: 1), stages: [])
        graph.addSink(try ContainerMuxer(path: ours, format: format), tracks: [video, audio])
        // A shallow queue, so that samples cross threads while the demuxers read on and reuse slots.
        try graph.runThreaded(queueDepth: 2)
        try ExternalTool.check("ffmpeg", ["-v", "error", "-y", "-i", input, "-c", "copy", theirs])
        for stream in ["v:0", "a:0"] {
            let packets = try ExternalTool.packetFingerprints(ours, stream: stream)
            #expect(packets.count >= 100, "\(stream)")  // 4 s: 100 frames at 25 fps, about 174 AAC packets
            #expect(packets == (try ExternalTool.packetFingerprints(theirs, stream: stream)), "\(stream)")
        }
    }
}
