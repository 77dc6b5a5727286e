import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport

/// Video made by FFmpeg's `testsrc2`, and helpers to drain video sources.
enum VideoTest {
    /// `ffmpeg -f lavfi -i testsrc2=size=WxH:rate=RATE,format=rgb24 -frames:v N -pix_fmt P -f FORMAT <path>`.
    /// (`testsrc2` rounds odd sizes down to even ones when it draws a subsampled format itself; drawing
    /// RGB and letting swscale convert keeps the odd size.)
    static func makeTestSource(
        _ path: String, width: Int, height: Int, rate: String = "30000/1001", frames: Int = 10,
        pixelFormat: String, container: String
    ) throws {
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=\(rate),format=rgb24",
                "-frames:v", String(frames), "-pix_fmt", pixelFormat, "-strict", "-1",  // -strict -1: 10-bit Y4M
                "-f", container, "-y", path
            ])
    }

    /// What `ffmpeg -i <path> -f rawvideo -` prints: the decoded frames, tightly packed, in the input's pixel format.
    static func ffmpegRaw(_ path: String, extra: [String] = []) throws -> [UInt8] {
        [UInt8](
            try ExternalTool.check("ffmpeg", ["-v", "error", "-xerror"] + extra + ["-i", path, "-f", "rawvideo", "-"])
                .stdout)
    }

    /// Every sample until `nil`.
    static func drain(_ source: inout some MediaSource) throws -> [MediaSample] {
        var samples: [MediaSample] = []
        while let sample = try source.next() { samples.append(sample) }
        return samples
    }

    /// Samples until the source throws: what came out, and the error (`nil` if it ended normally).
    static func drainUntilError(_ source: inout some MediaSource, limit: Int = 10_000) -> ([MediaSample], MediaError?) {
        var samples: [MediaSample] = []
        do {
            while samples.count < limit, let sample = try source.next() { samples.append(sample) }
            return (samples, nil)
        } catch let error as MediaError {
            return (samples, error)
        } catch {
            return (samples, MediaError(.io, "unexpected error \(error)"))
        }
    }

    /// The planes of `sample` one after the other.
    static func packed(_ sample: MediaSample) -> [UInt8] { sample.planes.flatMap { $0 } }

    /// Bytes of an ASCII string.
    static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
}
