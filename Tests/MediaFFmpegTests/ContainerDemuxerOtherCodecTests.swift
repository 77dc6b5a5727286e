import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// Codecs handed on untouched: their four-character code, the extradata as magic cookie or codec
/// configuration, every packet as ffprobe lists it, and for audio the priming and padding as trims,
/// so that Σ frameCount − trims is what ffmpeg decodes (where ffmpeg applies both) or what the
/// container declares.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ContainerDemuxerOtherCodecTests {
    struct Case: Sendable, CustomStringConvertible {
        var container: String
        var encoder: [String]
        var fourCC: String
        var isAudio: Bool
        var description: String { "\(fourCC) in .\(container)" }
    }

    static let cases: [Case] = [
        Case(container: "mkv", encoder: ["-c:a", "libopus"], fourCC: "opus", isAudio: true),
        Case(container: "ogg", encoder: ["-c:a", "libopus"], fourCC: "opus", isAudio: true),
        Case(container: "mp4", encoder: ["-c:a", "libopus"], fourCC: "opus", isAudio: true),
        Case(container: "mkv", encoder: ["-c:a", "flac"], fourCC: "flac", isAudio: true),
        Case(container: "m4a", encoder: ["-c:a", "alac"], fourCC: "alac", isAudio: true),
        Case(
            container: "mp4", encoder: ["-c:v", "libx265", "-x265-params", "log-level=none"], fourCC: "hvc1",
            isAudio: false),
        Case(container: "webm", encoder: ["-c:v", "libvpx-vp9"], fourCC: "vp09", isAudio: false)
    ]

    @Test(arguments: cases)
    func otherCodecsKeepTheirPacketsAndCarryTheirCode(_ c: Case) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("other.\(c.container)")
        let input =
            c.isAudio
            ? ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1"]
            : ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-t", "1"]
        try ExternalTool.check("ffmpeg", ["-v", "error"] + input + c.encoder + [path])
        let json = try ExternalTool.ffprobeJSON(
            path, ["-count_packets", "-show_streams", "-show_entries", "packet=size"])
        let probed = try #require((json["streams"] as? [[String: Any]])?.first)
        let sizes = try #require(json["packets"] as? [[String: Any]]).map { Int($0["size"] as? String ?? "") }

        let demuxer = try ContainerDemuxer(path: path)
        let stream = try #require(demuxer.streams.first)
        let code = c.fourCC.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let extradataSize = probed["extradata_size"] as? Int ?? 0
        if c.isAudio {
            let audio = try #require(stream.format?.audio)
            #expect(audio.codec == .other(fourCC: code))
            #expect(audio.magicCookie.count == extradataSize)
        } else {
            let video = try #require(stream.format?.video)
            #expect(video.codec == .other(fourCC: code))
            if c.fourCC == "vp09" {
                // VP9 has no extradata: its vpcC (version 1, profile 0, 8 bits) from the stream's parameters.
                #expect(extradataSize == 0)
                #expect(Array(video.codecConfiguration.prefix(5)) == [1, 0, 0, 0, 0])
                #expect(video.codecConfiguration.count == 12 && video.codecConfiguration[6] >> 4 == 8)
            } else {
                #expect(video.codecConfiguration.count == extradataSize)
            }
            #expect(video.width == 160 && video.height == 120)
        }
        let source = try demuxer.source(stream: 0)
        var samples: [MediaSample] = []
        while let sample = try source.next() { samples.append(sample) }
        #expect(samples.count == Int(probed["nb_read_packets"] as? String ?? ""))
        #expect(samples.map { Optional($0.byteCount) } == sizes)
        if c.isAudio {
            let frames = samples.reduce(0) { $0 + $1.frameCount - $1.trimAtStart - $1.trimAtEnd }
            // 48000 frames went in. ffmpeg 5.1 applies Opus/Matroska/Ogg priming and padding and the
            // lossless codecs have none; in MP4 it trims the start only, the container declares the rest.
            #expect(frames == 48_000, "\(samples.prefix(1)) ... \(samples.suffix(1))")
            if c.container != "mp4" {
                #expect(try ExternalTool.decode(path, format: "s16le").count / 2 == 48_000)
            }
            if c.fourCC == "opus" { #expect(samples.reduce(0) { $0 + $1.trimAtStart } == 312) }
        } else {
            #expect(samples.first?.flags.contains(.keyframe) == true)
        }
    }
}
