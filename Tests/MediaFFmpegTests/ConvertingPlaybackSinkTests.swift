import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// PCM that differs from the output (44.1 kHz s16 mono into a 48 kHz f32 stereo stream) is converted
/// on the way: `parecord` hears the tone at its frequency, for its duration, on both channels.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct ConvertingPlaybackSinkTests {
    @Test func playsOtherFormatsThroughTheConverter() throws {
        let daemon = try PulseDaemon()
        let folder = try TemporaryDirectory()
        let recorder = try MonitorRecording(daemon, into: folder.file("recorded.raw"))

        let output = try AudioPlaybackSink(
            connection: try PulseConnection(server: daemon.server), device: daemon.sinkName, sampleType: .f32,
            latency: .milliseconds(50))
        let sink = try ConvertingPlaybackSink(output)
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { output.stop() }  // a hang guard
        // 0.2 s of silence, then one second of a 1 kHz tone at half scale, as 44.1 kHz s16 mono.
        let values: [Int16] =
            (0..<8_820).map { _ in 0 }
            + (0..<44_100).map { Int16(16_384 * sin(2 * Double.pi * 1_000 * Double($0) / 44_100)) }
        let format = MediaFormat.audio(.pcm(.s16, sampleRate: 44_100, channels: 1))
        for start in stride(from: 0, to: values.count, by: 4_410) {
            let part = Array(values[start..<min(values.count, start + 4_410)])
            try sink.write(
                MediaSample(
                    format: format, data: part.withUnsafeBytes { [UInt8]($0) },
                    timing: .audio(startFrame: Int64(start), frameCount: part.count, sampleRate: 44_100),
                    frameCount: part.count))
        }
        try sink.finish()
        let recording = try recorder.stop()  // once it holds all that was played
        let left = stride(from: 0, to: recording.count, by: 2).map { recording[$0] }
        let right = stride(from: 1, to: recording.count, by: 2).map { recording[$0] }
        let loud = left.indices.filter { abs(left[$0]) > 0.05 }
        let first = try #require(loud.first)
        let last = try #require(loud.last)
        // One second sounds, ±2 %: the frames within 8 of a loud one (a 1 kHz tone is loud every 24 frames).
        // Not last − first: on a loaded machine an underrun stops the stream until its prebuffer refills,
        // which puts silence in the middle of what is otherwise played whole.
        var loudBefore = [0]
        for value in left { loudBefore.append(loudBefore[loudBefore.count - 1] + (abs(value) > 0.05 ? 1 : 0)) }
        let sounding = (first...last).filter { loudBefore[min(left.count, $0 + 9)] > loudBefore[max(0, $0 - 8)] }.count
        #expect(
            abs(Double(sounding) / 48_000 - 1.0) < 0.02, "\(sounding) frames sound, \(last - first) from first to last")
        let tone = Array(left[first..<last])
        let peak = RawAudio.spectralPeak(Array(tone.prefix(24_000)), sampleRate: 48_000, low: 900, high: 1_100)
        #expect(abs(peak.frequency - 1_000) <= 10)  // ±1 %
        // Mono to stereo: both channels carry it at the same level (FFmpeg's matrix: −3 dB each).
        let leftLevel = RawAudio.rms(tone)
        let rightLevel = RawAudio.rms(Array(right[first..<last]))
        #expect(abs(20 * log10(leftLevel / rightLevel)) < 0.1)
        #expect(leftLevel > 0.2)
    }
}
