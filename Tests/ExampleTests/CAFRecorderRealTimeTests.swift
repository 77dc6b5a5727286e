#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `caf-recorder --realtime` killed mid-recording: the one `caf-recorder` test that runs in real time, so it
/// runs in the live run (``CAFEndToEndTests`` has the others).
@Suite(.tags(.realTime), .timeLimit(.minutes(3)), .ffmpegLeakGate) struct CAFRecorderRealTimeTests {
    /// A realtime PCM recording killed with SIGKILL once it has written some audio: the file (data size
    /// -1) is read to the last complete frame by our reader and by ffprobe.
    @Test func killedPCMRecordingIsReadable() throws {
        RealTimeCheck.require("caf-recorder --realtime")
        let dir = try TemporaryDirectory()
        let out = dir.file("k.caf")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPaths.executable("caf-recorder"))
        process.arguments = [
            "--format", "lpcm", "--realtime", "--tone", "440", "--duration", "30", "--output", out, "--quiet"
        ]
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Killed mid-recording: once 0.5 s of audio (96 000 bytes at 48 kHz s16 stereo) is in the file.
        try waitUntil("caf-recorder to write 0.5 s of audio", every: .milliseconds(20)) {
            MediaTestSupport.fileSize(out) >= 96_000 || !process.isRunning
        }
        #expect(process.isRunning, "the 30 s realtime recording ended early")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let fileSize = try #require(try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int)
        let reader = try CAFReader(path: out)
        #expect(reader.format.pcm == .s16)
        #expect(reader.format.bytesPerFrame == 4)
        #expect(reader.chunks.last?.type == "data")
        #expect(reader.chunks.last?.size == -1)
        var frames = 0
        while let sample = try reader.next() { frames += sample.frameCount }
        #expect(frames > 0)
        #expect(Int64(frames) * 4 <= Int64(fileSize) - reader.dataOffset)
        #expect(Int64(fileSize) - reader.dataOffset - Int64(frames) * 4 < 4, "every complete frame is read")
        #expect(frames >= 24_000, "\(frames) frames: the kill came after 0.5 s were written")
        #expect(frames < 48_000 * 30, "\(frames) frames: a realtime recording killed before its 30 s")

        let probe = try ExternalTool.run("ffprobe", ["-v", "error", "-show_streams", out])
        #expect(probe.status == 0, "\(probe.stderr)")
        #expect(probe.output.contains("codec_name=pcm_s16le"))
        try ExternalTool.check("ffmpeg", ["-v", "error", "-i", out, "-f", "null", "-"])
    }
}
