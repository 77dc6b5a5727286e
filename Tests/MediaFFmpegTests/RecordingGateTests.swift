import Foundation
@testable import MediaPipeline
import Testing

/// ``AudioRecorder``'s gate on its own, with buffers that do not divide its limit and a fade shorter than a
/// buffer: every frame it hands out is counted once, at the frame where it starts, and a limit is exact.
/// (The recorder's own tests use 480-frame buffers at 48 kHz, where a limit of whole buffers and a
/// 480-frame fade would hide an off-by-one in either.)
@Suite(.timeLimit(.minutes(10))) struct RecordingGateTests {
    /// A 44.1 kHz stereo f32 tone in 480-frame buffers (the gate's fade is 441 frames there).
    static func tone(frames: Int64) throws -> ToneGenerator {
        try ToneGenerator(
            .sine(frequency: 440, amplitude: 0.5), sampleRate: 44_100, channels: 2, sampleType: .f32,
            length: .frames(frames), framesPerSample: 480)
    }

    /// Every sample's (start frame, frame count, bytes) until the gate ends, calling `before` with the
    /// index of each sample before asking for it.
    static func drain(_ gate: inout RecordingGate, before: (Int) -> Void = { _ in }) throws -> [(Int64, Int, Int)] {
        var out: [(Int64, Int, Int)] = []
        before(0)
        while let sample = try gate.next() {
            #expect(sample.timing.presentationTime.timescale == 44_100)
            out.append((sample.timing.presentationTime.value, sample.frameCount, sample.data.count))
            before(out.count)
        }
        return out
    }

    @Test func aLimitThatCutsABufferIsExact() throws {
        let control = RecordingControl()
        var gate = RecordingGate(
            input: try Self.tone(frames: 10_000), sampleRate: 44_100, limit: 1_000, control: control)
        let samples = try Self.drain(&gate)
        #expect(samples.map(\.1) == [480, 480, 40])
        #expect(samples.map(\.2) == [480 * 8, 480 * 8, 40 * 8])  // the data is cut with the count
        #expect(control.framesWritten == 1_000)
    }

    @Test func aPauseFadeCountsOnlyTheFramesItKeeps() throws {
        let control = RecordingControl()
        var gate = RecordingGate(input: try Self.tone(frames: 4_800), sampleRate: 44_100, limit: nil, control: control)
        // Paused before the third buffer is asked for (its first 441 frames fade out, the other 39 are
        // dropped), resumed before the fourth (which fades in).
        let samples = try Self.drain(&gate) { index in
            if index == 2 { control.setPaused(true) }
            if index == 3 { control.setPaused(false) }
        }
        #expect(samples.map(\.1) == [480, 480, 441] + Array(repeating: 480, count: 7))
        var next: Int64 = 0
        for (start, frames, _) in samples {
            #expect(start == next, "each sample starts where the one before it ended")
            next = start + Int64(frames)
        }
        #expect(control.framesWritten == next)
        #expect(control.framesDropped == 480 - 441)
    }
}
