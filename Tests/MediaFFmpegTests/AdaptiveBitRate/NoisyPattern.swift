import MediaCore
import MediaFormats

/// Test pictures that do not compress to nothing: the scrolling bars of ``TestPatternGenerator`` with
/// fresh noise of ±`amplitude` on every luma sample of every frame (a fixed-seed xorshift, so the same
/// call gives the same frames). The bars alone need a few kilobits per frame at any rate, which would
/// hide whether the encoder follows its target; temporal noise keeps x264 at its target.
struct NoisyPattern: MediaSource {
    private var pattern: TestPatternGenerator
    private var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    let amplitude: Int

    init(width: Int = 640, height: Int = 360, fps: Int32 = 25, frames: Int64, amplitude: Int = 24) throws {
        pattern = try TestPatternGenerator(
            width: width, height: height, frameRate: FrameRate(fps), length: .frames(frames))
        self.amplitude = amplitude
    }

    /// The next frame (yuv420p, pts = frame index / fps), or `nil` at the end.
    mutating func next() throws -> MediaSample? {
        guard let frame = try pattern.next(), let format = frame.format.video else { return nil }
        var planes = frame.planes
        let span = UInt64(2 * amplitude + 1)
        var state = self.state
        planes[0].withUnsafeMutableBufferPointer { luma in
            for i in luma.indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                luma[i] = UInt8(clamping: Int(luma[i]) + Int(state % span) - amplitude)
            }
        }
        self.state = state
        return MediaSample(
            format: .video(format), planes: planes, timing: frame.timing, frameCount: 1, flags: frame.flags)
    }
}
