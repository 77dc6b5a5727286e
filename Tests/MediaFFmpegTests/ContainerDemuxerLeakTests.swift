import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// Every FFmpeg resource a ContainerDemuxer and its sources hold is freed when they are released.
///
/// `FFmpegResources.liveCount` is process-wide and the other suites run in parallel, so the count is
/// checked in a child process running only ``ContainerDemuxerLeakTests/leakCheckInChildProcess()``
/// (enabled there by an environment variable): in that process nothing else allocates.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ContainerDemuxerLeakTests {
    static let childVariable = "MEDIAPIPELINE_DEMUXER_LEAK_CHILD"
    static let fixtureVariable = "MEDIAPIPELINE_DEMUXER_LEAK_FIXTURE"

    @Test func demuxerAndSourcesReleaseEveryFFmpegResource() throws {
        let dir = try TemporaryDirectory()
        let path = try DemuxerFixture.make("mp4", in: dir)
        let bundle = TestPaths.buildProductsDirectory + "/MediaPipelinePackageTests.xctest"
        let run = try ExternalTool.run(
            "env",
            [
                "\(Self.childVariable)=1", "\(Self.fixtureVariable)=\(path)", bundle,
                "--testing-library", "swift-testing", "--filter", "leakCheckInChildProcess"
            ])
        let output = run.output + run.stderr
        #expect(run.status == 0, "\(output.suffix(3000))")
        #expect(output.contains("Test leakCheckInChildProcess() passed"), "\(output.suffix(3000))")
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment[Self.childVariable] == "1"))
    func leakCheckInChildProcess() throws {
        let path = try #require(ProcessInfo.processInfo.environment[Self.fixtureVariable])
        let start = FFmpegResources.liveCount
        do {
            // From a path: the format context and the packet; sources read, queue, seek, end.
            let demuxer = try ContainerDemuxer(path: path)
            #expect(FFmpegResources.liveCount == start + 2)
            let video = try demuxer.source(stream: 0)
            let audio = try demuxer.source(stream: 1)
            for _ in 0..<10 { _ = try video.next() }
            try demuxer.seek(to: MediaTime(value: 1, timescale: 1))
            while try video.next() != nil {}
            _ = try audio.next()
        }
        #expect(FFmpegResources.liveCount == start)
        do {
            // From bytes: and the custom I/O context; a source outliving its demuxer variable.
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            var source: ContainerDemuxer.StreamSource?
            do {
                let demuxer = try ContainerDemuxer(bytes: bytes)
                #expect(FFmpegResources.liveCount == start + 3)
                source = try demuxer.source(stream: 1)
            }
            #expect(FFmpegResources.liveCount == start + 3)
            while try source?.next() != nil {}
            source = nil
        }
        #expect(FFmpegResources.liveCount == start)
        // Failures to open free what they allocated.
        for bytes in [[], [UInt8](repeating: 0x47, count: 1000), Array("ftypisom".utf8)] {
            #expect(throws: MediaError.self) { try ContainerDemuxer(bytes: bytes) }
        }
        #expect(throws: MediaError.self) { try ContainerDemuxer(path: path + ".missing") }
        #expect(FFmpegResources.liveCount == start)
    }
}
