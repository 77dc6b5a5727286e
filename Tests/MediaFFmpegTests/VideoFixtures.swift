import Foundation
import MediaCore
import MediaTestSupport

/// Raw video made by ffmpeg's `testsrc2`, split into frames in test code, and helpers to judge H.264
/// output with ffmpeg/ffprobe (there is no y4m reader or Annex-B muxer in this branch).
struct VideoClip {
    let dir: TemporaryDirectory
    let width: Int
    let height: Int
    let rate: FrameRate
    /// The raw yuv420p file.
    let yuvPath: String
    /// The same frames as y4m, for the CLI.
    let y4mPath: String
    /// One sample per frame, pts = frame index at timescale `rate.numerator` (plus `startFrame`).
    let frames: [MediaSample]

    /// `count` frames of `testsrc2` at `width`×`height` and `rate`, the first at frame `startFrame`.
    init(width: Int = 320, height: Int = 240, rate: FrameRate = FrameRate(24), count: Int = 48, startFrame: Int64 = 0)
        throws
    {
        dir = try TemporaryDirectory()
        self.width = width
        self.height = height
        self.rate = rate
        yuvPath = dir.file("in.yuv")
        y4mPath = dir.file("in.y4m")
        let source = [
            "-v", "error", "-f", "lavfi", "-i",
            "testsrc2=size=\(width)x\(height):rate=\(rate.numerator)/\(rate.denominator)",
            "-frames:v", "\(count)", "-pix_fmt", "yuv420p"
        ]
        try GeneratedFixture.ffmpeg(source + ["-f", "rawvideo", yuvPath])
        try GeneratedFixture.ffmpeg(source + ["-f", "yuv4mpegpipe", y4mPath])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: yuvPath)))
        let format = VideoFormat.raw(.yuv420p, width: width, height: height, frameRate: rate)
        frames = VideoClip.split(bytes, format: format, startFrame: startFrame)
    }

    /// Tightly packed frames of `format` cut from `bytes`, timed by the format's frame rate.
    static func split(_ bytes: [UInt8], format: VideoFormat, startFrame: Int64 = 0) -> [MediaSample] {
        let sizes = format.planeByteCounts
        let frameSize = sizes.reduce(0, +)
        guard frameSize > 0, let rate = format.frameRate else { return [] }
        return (0..<bytes.count / frameSize).map { n in
            var offset = n * frameSize
            let planes = sizes.map { size in
                defer { offset += size }
                return Array(bytes[offset..<offset + size])
            }
            let pts = rate.time(ofFrame: Int64(n) + startFrame)
            return MediaSample(
                format: .video(format), planes: planes,
                timing: SampleTiming(presentationTime: pts, decodeTime: pts, duration: rate.frameDuration),
                frameCount: 1)
        }
    }
}

enum Video {
    /// Runs `samples` through `stage` (process each, then finish) and returns what it emitted.
    static func run<S: MediaStage>(_ stage: S, _ samples: [MediaSample]) throws -> [MediaSample] {
        // By hand, as a driver would: the guard keeps the order and stamps the errors.
        let stage = CheckedStage(stage)
        var out: [MediaSample] = []
        for sample in samples { try stage.process(sample) { out.append($0) } }
        try stage.finish { out.append($0) }
        return out
    }

    /// AVCC samples as an Annex-B elementary stream: SPS and PPS before each keyframe, each AVCC length
    /// replaced by a 4-byte start code.
    static func annexB(_ samples: [MediaSample]) -> [UInt8] {
        var out: [UInt8] = []
        for sample in samples {
            if sample.flags.contains(.keyframe), let parameters = sample.format.video?.h264 {
                for unit in parameters.sequenceParameterSets + parameters.pictureParameterSets {
                    out += [0, 0, 0, 1] + unit
                }
            }
            let bytes = sample.data
            var offset = 0
            while offset + 4 <= bytes.count {
                let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
                out += [0, 0, 0, 1] + bytes[offset + 4..<min(bytes.count, offset + 4 + length)]
                offset += 4 + length
            }
        }
        return out
    }

    /// Writes `bytes` to `path`.
    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The hash column of `ffmpeg -i path -f framemd5 -` (one MD5 per decoded frame), decoding with `-xerror`.
    static func frameHashes(_ path: String) throws -> [String] {
        let result = try ExternalTool.check("ffmpeg", ["-v", "error", "-xerror", "-i", path, "-f", "framemd5", "-"])
        return result.output.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The frames of an Annex-B stream as AVCC samples with the stream's parameter sets in the format
    /// (cut at access-unit boundaries: a VCL NAL unit with `first_mb_in_slice` 0, i.e. a slice payload
    /// whose first bit is 1), timed at `rate` in decode order. Enough for x264 streams.
    static func avccSamples(annexB bytes: [UInt8], width: Int, height: Int, rate: FrameRate) -> [MediaSample] {
        var units: [[UInt8]] = []
        var start: Int? = nil
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                if let s = start {
                    var e = i; while e > s, bytes[e - 1] == 0 { e -= 1 }; units.append(Array(bytes[s..<e]))
                }
                i += 3
                start = i
            } else {
                i += 1
            }
        }
        if let s = start { units.append(Array(bytes[s...])) }
        var sps: [[UInt8]] = []
        var pps: [[UInt8]] = []
        var accessUnits: [([[UInt8]], Bool)] = []
        for unit in units {
            guard let header = unit.first else { continue }
            switch header & 0x1F {
            case 7: if !sps.contains(unit) { sps.append(unit) }
            case 8: if !pps.contains(unit) { pps.append(unit) }
            case 1, 5:
                let firstSlice = unit.count > 1 && unit[1] & 0x80 != 0
                if firstSlice || accessUnits.isEmpty {
                    accessUnits.append(([unit], header & 0x1F == 5))
                } else {
                    accessUnits[accessUnits.count - 1].0.append(unit)
                }
            case 6: accessUnits.append(([unit], false))  // SEI starts the next access unit
            default: break
            }
        }
        // An SEI-only entry belongs to the access unit after it.
        var merged: [([[UInt8]], Bool)] = []
        var carry: [[UInt8]] = []
        for (units, key) in accessUnits {
            if units.count == 1, let h = units[0].first, h & 0x1F == 6 { carry += units; continue }
            merged.append((carry + units, key))
            carry = []
        }
        let format = VideoFormat.h264(
            width: width, height: height, frameRate: rate,
            parameters: H264Parameters(sequenceParameterSets: sps, pictureParameterSets: pps))
        return merged.enumerated().map { n, au in
            var data: [UInt8] = []
            for unit in au.0 {
                let l = unit.count;
                data += [UInt8(l >> 24 & 0xFF), UInt8(l >> 16 & 0xFF), UInt8(l >> 8 & 0xFF), UInt8(l & 0xFF)] + unit
            }
            let t = rate.time(ofFrame: Int64(n))
            return MediaSample(
                format: .video(format), data: data,
                timing: SampleTiming(presentationTime: .invalid, decodeTime: t, duration: rate.frameDuration),
                frameCount: 1, flags: au.1 ? .keyframe : [])
        }
    }

    /// PSNR in dB of the luma planes of two equally sized yuv420p frames (∞ when identical).
    static func lumaPSNR(_ a: MediaSample, _ b: MediaSample) -> Double {
        let x = a.planes[0]
        let y = b.planes[0]
        let n = min(x.count, y.count)
        guard n > 0 else { return 0 }
        var sum = 0.0
        for i in 0..<n { let d = Double(x[i]) - Double(y[i]); sum += d * d }
        let mse = sum / Double(n)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// `ffprobe -show_frames` key_frame flags of a stream file, in presentation order.
    static func probeKeyFrames(_ path: String) throws -> [Bool] {
        let json = try ExternalTool.ffprobeJSON(path, ["-show_frames", "-show_entries", "frame=key_frame"])
        let frames = json["frames"] as? [[String: Any]] ?? []
        return frames.map { ($0["key_frame"] as? Int) == 1 }
    }
}
