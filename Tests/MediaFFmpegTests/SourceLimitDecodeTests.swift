import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// Limits on a compressed file, judged by tools nobody here wrote: AAC packets from an ADTS file,
/// limited (a packet trimmed at the end, or at the start after a pre-roll packet), decoded by our
/// decoder, give exactly the frames asked for, and (within 10⁻³) the frames FFmpeg decodes from the
/// whole file.
@Suite(.timeLimit(.minutes(5)), .ffmpegLeakGate) struct SourceLimitDecodeTests {
    /// 215 AAC-LC packets at 22.05 kHz stereo: 9.98 s.
    let path = TestPaths.fixture("shaka-player_hls-raw-aac_fileSequence0.aac")

    /// 3 s is 66 150 frames at 22.05 kHz: 64.6 packets, so the last one is trimmed at its end.
    @Test func prefixOfAnADTSFileDecodesToExactlyItsFrames() throws {
        let folder = try TemporaryDirectory()
        let wav = folder.file("three-seconds.wav")
        var pipeline = Pipeline(
            source: try ADTSReader(path: path).prefix(duration: .seconds(3)), stages: [AACDecoder(outputFormat: .s16)],
            sink: WAVMuxer(output: try FileOutput(path: wav)))
        let result = try pipeline.run()
        #expect(result.samplesRead == 65)
        let soxFrames = try ExternalTool.check("sox", ["--i", "-s", wav]).output
        #expect(soxFrames.trimmingCharacters(in: .whitespacesAndNewlines) == "66150")
        let probe = try ExternalTool.probeFirstStream(wav)
        #expect(probe["duration_ts"] as? Int == 66150)
    }

    /// 1 s to 3 s of a tone: the pre-roll packet lets the decoder rebuild the first kept packet (AAC
    /// overlaps each packet with the one before), so the frames are FFmpeg's decode of the whole file,
    /// frames 44 100 to 132 300, within 10⁻³. (Not bit for bit: FFmpeg's own decoder started
    /// mid-stream differs by about 10⁻⁵, its noise generator's state. Without the pre-roll the first
    /// packet is off by the tone's full amplitude, 0.09.)
    @Test func windowOfAnADTSFileIsFFmpegsDecodeOfThoseFrames() throws {
        let folder = try TemporaryDirectory()
        let aac = folder.file("tone.aac")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=f=523:r=44100:d=4", "-ac", "2", "-c:a", "aac", "-b:a", "96k",
                aac
            ])
        var pipeline = Pipeline(
            source: try ADTSReader(path: aac).start(at: .seconds(1)).prefix(duration: .seconds(2)),
            stages: [AACDecoder(outputFormat: .f32)], sink: CollectingSink())
        try pipeline.run()
        let sink = try #require(pipeline.finishedSink as? CollectingSink)
        #expect(sink.samples.reduce(0) { $0 + $1.frameCount } == 88_200)
        #expect(sink.samples.first?.timing.presentationTime == .seconds(1))
        let ours = try sink.samples.flatMap { try $0.pcm(as: Float.self) }
        #expect((ours.map(abs).max() ?? 0) > 0.05)  // a tone, not silence: a missing pre-roll would show
        let whole = RawAudio.floats(try ExternalTool.decode(aac, format: "f32le"))
        let theirs = Array(whole[(44_100 * 2)..<(132_300 * 2)])
        #expect(ours.count == theirs.count)
        let error = zip(ours, theirs).map { abs($0 - $1) }.max() ?? .infinity
        #expect(error < 1e-3)
    }
}
