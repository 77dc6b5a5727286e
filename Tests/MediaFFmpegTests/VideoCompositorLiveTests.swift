import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// A live composition on one clock: a camera-like input that stops delivering after a third of a second
/// holds its last frame (counted as repeated) while the other goes on, and neither is waited for.
@Suite(.tags(.realTime), .timeLimit(.minutes(1))) struct VideoCompositorLiveTests {
    @Test func aStalledInputHoldsItsLastFrameWhileTheOtherGoesOn() throws {
        let clock = MediaClock()
        let canvas = VideoCompositor.Canvas(width: 128, height: 48, frameRate: FrameRate(30))
        // 10 frames (0.33 s), then a stall of 0.6 s before its end.
        let stalling = StallingSource(
            RealTimeSource(
                try TestPatternGenerator(width: 64, height: 48, length: .frames(10), scrollStep: 1), clock: clock),
            stall: 0.6)
        let steady = RealTimeSource(
            try TestPatternGenerator(width: 64, height: 48, length: .frames(30), scrollStep: 1), clock: clock)
        let stalled = VideoCompositor.Input(source: stalling, layout: VideoCompositor.Layout(x: 0, y: 0))
        let going = VideoCompositor.Input(source: steady, layout: VideoCompositor.Layout(x: 64, y: 0))
        let compositor = try VideoCompositor(
            canvas: canvas, live: VideoCompositor.Live(clock: clock), inputs: [stalled, going])
        let started = Date()
        var frames: [MediaSample] = []
        while let frame = try compositor.next() { frames.append(frame) }
        let elapsed = Date().timeIntervalSince(started)
        // The steady input sets the pace: 1 s of canvas, drawn in real time.
        #expect(frames.count >= 29 && frames.count <= 31, "\(frames.count) frames")
        // It waited for the clock (one-sided: a loaded machine only makes the run longer).
        #expect(elapsed > 0.8, "\(elapsed) s")
        // From the stall on, the left half does not change: its last frame is held.
        func left(_ frame: MediaSample) -> [UInt8] {
            (0..<48).flatMap { Array(frame.planes[0][($0 * 128)..<($0 * 128 + 64)]) }
        }
        func right(_ frame: MediaSample) -> [UInt8] {
            (0..<48).flatMap { Array(frame.planes[0][($0 * 128 + 64)..<($0 * 128 + 128)]) }
        }
        let held = frames[15..<26]  // until it ends, 0.93 s in
        #expect(Set(held.map(left)).count == 1, "the stalled input's picture changed while it delivered nothing")
        #expect(left(frames[15]) != left(frames[0]))
        #expect(Set(held.map(right)).count >= 10, "the steady input stopped moving")
        #expect(frames.last.map(left) == [UInt8](repeating: 16, count: 64 * 48), "the ended input is still drawn")
        #expect(stalled.controls.repeatedFrames >= 15, "\(stalled.controls.repeatedFrames) repeated")
    }
}
