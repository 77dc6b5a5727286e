import Foundation
import MediaCore
import MediaFFmpeg
@testable import MediaFormats  // SplitMix64
import MediaTestSupport
import Testing

/// A real stream (our encoder's, with I, P and B pictures) with bytes overwritten at random places,
/// read by AnnexBReader and decoded by H264Decoder, the way `h264-encoder --input damaged.h264` does:
/// every damage ends in a typed error that says where, or in as many frames as ffmpeg decodes from the
/// same bytes with the access units that gave none counted; never a crash, a hang or an untyped error.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct H264CorruptionTests {
    /// The intact stream: 24 frames of 320x240, gop 8, B-frames, as Annex-B bytes.
    static func intactStream() throws -> [UInt8] {
        let clip = try VideoClip(count: 24)
        var settings = H264Encoder.Settings()
        settings.preset = "veryfast"
        settings.maxKeyFrameInterval = 8
        settings.maxBFrames = 2
        return Video.annexB(try Video.run(try H264Encoder(settings: settings), clip.frames))
    }

    /// With either threading: groups of pictures go to several decoders, whose concealment may differ
    /// from one decoder's, but not what is decoded or counted.
    @Test(arguments: Array(UInt64(1)...24), [H264Decoder.Threading.frames, .groupsOfPictures(workers: 2)])
    func damagedStreamGivesFramesOrATypedError(seed: UInt64, threading: H264Decoder.Threading) throws {
        var bytes = try Self.intactStream()
        var damage = SplitMix64(seed: seed)  // the same damage on every run
        // Where the damage hurts most: NAL unit headers, parameter sets and slice headers. Seeds 1-8
        // overwrite one of the first 8 bytes of a NAL unit, 9-16 three NAL unit header bytes (new
        // types), 17-24 a run of 64 zero bytes (a zero NAL unit, start codes) or random bytes.
        let nalOffsets = try AnnexBScanner.split(bytes).map { Int($0.offset) }
        func someNAL() -> Int { nalOffsets[Int(damage.next() % UInt64(nalOffsets.count))] }
        switch seed {
        case 1...8:
            let at = min(bytes.count - 1, someNAL() + Int(damage.next() % 8))
            bytes[at] = UInt8(truncatingIfNeeded: damage.next())
        case 9...16:
            for _ in 0..<3 { bytes[someNAL()] = UInt8(truncatingIfNeeded: damage.next()) & 0x7F }
        default:
            let start = Int(damage.next() % UInt64(bytes.count - 64))
            let zeros = seed % 2 == 0
            for i in start..<start + 64 { bytes[i] = zeros ? 0 : UInt8(truncatingIfNeeded: damage.next()) }
        }

        let reader = AnnexBReader(bytes: bytes, readSize: 4096)
        let decoder = H264Decoder(threading: threading)
        let checked = CheckedStage(decoder)  // by hand, with the guard that stamps the sample index
        var accessUnits: Int64 = 0
        var frames: Int64 = 0
        var failure: MediaError?
        do {
            while let sample = try reader.next() {
                accessUnits += 1
                try checked.process(sample, into: { _ in frames += 1 })
            }
            try checked.finish(into: { _ in frames += 1 })
        } catch let error as MediaError {
            failure = error
        } catch {
            Issue.record("seed \(seed): an error that is not a MediaError: \(error)")
        }
        #expect(frames <= accessUnits, "seed \(seed): \(frames) frames from \(accessUnits) access units")
        if let failure {
            // A typed error that names where: a byte offset (reader) or a sample index (decoder).
            #expect(failure.byteOffset != nil || failure.sampleIndex != nil, "seed \(seed): \(failure)")
            return
        }
        // Decoded to the end: as many frames as ffmpeg decodes from the same bytes, and the access
        // units that gave none are counted, not dropped in silence.
        let dir = try TemporaryDirectory()
        let path = dir.file("damaged.h264")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let ffmpeg = try ExternalTool.run("ffmpeg", ["-v", "quiet", "-i", path, "-f", "framemd5", "-"])
        #expect(ffmpeg.status == 0)
        let ffmpegFrames = ffmpeg.output.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
        #expect(Int(frames) == ffmpegFrames, "seed \(seed): we decoded \(frames) frames, ffmpeg \(ffmpegFrames)")
        #expect(decoder.frameCount == frames)
        #expect(decoder.accessUnitCount == accessUnits)
        #expect(decoder.missingFrameCount == accessUnits - frames)
    }
}

extension H264CorruptionTests {
    /// The decoder's counters can be read while it is emitting a frame (from the `emit` closure).
    @Test func countersReadableFromTheEmitClosure() throws {
        let bytes = try Self.intactStream()
        let reader = AnnexBReader(bytes: bytes)
        let decoder = H264Decoder()
        var seen: [Int64] = []
        while let sample = try reader.next() {
            try decoder.process(
                sample, into: { _ in seen.append(decoder.frameCount + decoder.missingFrameCount * 1000) })
        }
        try decoder.finish(into: { _ in seen.append(decoder.frameCount + decoder.missingFrameCount * 1000) })
        #expect(seen == Array(1...24))  // the frame count so far, and no missing frame at any point
        #expect(decoder.missingFrameCount == 0)
    }
}
