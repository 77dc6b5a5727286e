import MediaPipeline
import MediaTestSupport
import Testing

/// `ContainerDemuxer.streamSource(_:stream:)`: a demuxer that listed the streams is handed over to one
/// stream's source instead of opening the file again (what `transcode` does for each input's first
/// stream). The source reads that stream whole, as ffprobe counts its packets, and the same samples as a
/// source of a demuxer of its own; a demuxer that already has a source is refused.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ContainerDemuxerHandOverTests {
    typealias Fixture = DemuxerFixture

    @Test(arguments: [("mp4", 0), ("mp4", 1), ("ts", 0), ("h264", 0)])
    func aHandedOverDemuxerReadsItsStreamLikeAFreshOne(kind: String, stream: Int) throws {
        let dir = try TemporaryDirectory()
        let path = try Fixture.make(kind, in: dir)
        let listed = try ContainerDemuxer(path: path)
        #expect(listed.streams.count == (kind == "h264" ? 1 : 2))
        let handedOver = try Self.readAll(ContainerDemuxer.streamSource(listed, stream: stream))
        let fresh = try Self.readAll(ContainerDemuxer.streamSource(path: path, stream: stream))
        #expect(handedOver.count == (try Fixture.probePackets(path)[stream]?.count))
        #expect(!handedOver.isEmpty)
        #expect(handedOver == fresh)
    }

    @Test func aDemuxerWithASourceIsRefused() throws {
        let dir = try TemporaryDirectory()
        let path = try Fixture.make("mp4", in: dir)
        let demuxer = try ContainerDemuxer(path: path)
        let audio = try demuxer.source(stream: 1)
        #expect(try audio.next() != nil)
        do {
            // The audio source still holds the demuxer (a local's lifetime is lexical: `audio` lives to
            // the end of the function), so handing the demuxer over would stop the source's packets.
            _ = try ContainerDemuxer.streamSource(audio.demuxer, stream: 0)
            Issue.record("handed over a demuxer whose stream 1 has a source")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("already has a source for stream 1"))
        }
    }

    static func readAll(_ source: ContainerDemuxer.StreamSource) throws -> [MediaSample] {
        var samples: [MediaSample] = []
        while let sample = try source.next() { samples.append(sample) }
        return samples
    }
}
