import Foundation
import MediaCore
import MediaFFmpeg
import MediaFormats
import MediaTestSupport
import Testing

/// `H264Decoder(threading: .groupsOfPictures(...))` gives what the default (one decoder, frame threads)
/// gives for undamaged streams of every kind the library reads: the same frames (bytes, formats,
/// flags), times and counts, and so ffmpeg's frames; with fewer workers than groups, with the buffer
/// too small for a group (the switch to frame threads mid-stream), and with parameter sets that are
/// only in-band or that change.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct H264DecoderThreadingTests {
    /// A stream's access units, by the reader a user would take, and the file ffmpeg judges.
    struct Stream: Sendable, CustomTestStringConvertible {
        let name: String
        let samples: [MediaSample]
        let path: String
        var testDescription: String { name }
    }

    /// x264 by the CLI: 40 frames of 320x240, an IDR every `gop`, `bFrames` B-frames.
    static func cliStream(_ clip: VideoClip, gop: Int, bFrames: Int) throws -> String {
        let path = clip.dir.file("g\(gop)b\(bFrames).h264")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-i", clip.y4mPath, "-c:v", "libx264", "-preset", "veryfast", "-bf", "\(bFrames)",
                "-g", "\(gop)", "-keyint_min", "\(gop)", "-sc_threshold", "0", "-f", "h264", path
            ])
        return path
    }

    static func samples(of source: some MediaSource) throws -> [MediaSample] {
        var source = source
        var samples: [MediaSample] = []
        while let sample = try source.next() { samples.append(sample) }
        return samples
    }

    /// The same frames, in the same order, with the same times, formats, flags and bytes.
    static func expectSame(_ frames: [MediaSample], _ reference: [MediaSample], _ name: String) {
        #expect(frames.count == reference.count, "\(name)")
        for (index, (frame, expected)) in zip(frames, reference).enumerated() {
            #expect(frame.timing == expected.timing, "\(name): frame \(index)")
            #expect(frame.format == expected.format, "\(name): frame \(index)")
            #expect(frame.flags == expected.flags, "\(name): frame \(index)")
            #expect(frame.planes == expected.planes, "\(name): frame \(index)")
        }
    }

    @Test(arguments: [(0, 10), (3, 10), (3, 1), (2, 7)])
    func sameFramesAndTimesAsFrameThreads(bFrames: Int, gop: Int) throws {
        let clip = try VideoClip(count: 40)
        let path = try Self.cliStream(clip, gop: gop, bFrames: bFrames)
        let copy = clip.dir.file("copy.mp4")
        try ExternalTool.check("ffmpeg", ["-v", "error", "-i", path, "-c", "copy", copy])
        let hashes = try Video.frameHashes(path)
        #expect(hashes.count == 40)
        let streams = [
            // Decode-order placeholder times (timed by decode time), parameter sets in the format.
            Stream(
                name: "demuxed .h264",
                samples: try Self.samples(of: ContainerDemuxer.streamSource(path: path, stream: 0)),
                path: path),
            Stream(name: "AnnexBReader", samples: try Self.samples(of: AnnexBReader(path: path)), path: path),
            // Real presentation times.
            Stream(
                name: "MP4", samples: try Self.samples(of: ContainerDemuxer.streamSource(path: copy, stream: 0)),
                path: path)
        ]
        for stream in streams {
            let reference = H264Decoder()
            let expected = try Video.run(reference, stream.samples)
            #expect(expected.map(H264DecoderTests.md5) == hashes, "\(stream.name)")
            // 2 and 3 workers; a buffer of 100 pictures (every group fits) and of 4 (a group of 10 does
            // not: the first one switches the stream to frame threads).
            for (workers, pictures) in [(2, 100), (3, 100), (2, 4)] {
                let bufferBytes = pictures * workers * 320 * 240 * 3 / 2
                let decoder = H264Decoder(threading: .groupsOfPictures(workers: workers, bufferBytes: bufferBytes))
                let frames = try Video.run(decoder, stream.samples)
                let name = "\(stream.name), \(workers) workers, \(pictures) pictures"
                Self.expectSame(frames, expected, name)
                #expect(decoder.frameCount == 40, "\(name)")
                #expect(decoder.accessUnitCount == 40, "\(name)")
                #expect(decoder.missingFrameCount == 0 && decoder.damagedFrameCount == 0, "\(name)")
            }
        }
    }

    /// Our encoder's samples (parameter sets only in the format, real times, B-frames), then a change
    /// of parameter sets mid-stream (Main, then High profile): every group's decoder is given the sets
    /// in force, so every frame decodes as with frame threads.
    @Test func parameterSetsFromTheFormatAndTheirChange() throws {
        let clip = try VideoClip(count: 32)
        var main = H264Encoder.Settings()
        main.profile = "main"
        main.preset = "veryfast"
        main.maxKeyFrameInterval = 6
        main.maxBFrames = 2
        var high = main
        high.profile = "high"
        let first = try Video.run(try H264Encoder(settings: main), Array(clip.frames.prefix(16)))
        let second = try Video.run(try H264Encoder(settings: high), Array(clip.frames.suffix(16)))
        #expect(first.first?.format.video?.h264 != second.first?.format.video?.h264)
        let expected = try Video.run(H264Decoder(), first + second)
        #expect(expected.map(\.timing.presentationTime) == clip.frames.map(\.timing.presentationTime))
        let frames = try Video.run(H264Decoder(threading: .groupsOfPictures(workers: 3)), first + second)
        Self.expectSame(frames, expected, "parameter set change")
    }

    /// Parameter sets only in-band, in the first access unit (moved there from the format, which then
    /// has none): later groups' decoders get them from the history of what the stream gave.
    @Test func parameterSetsOnlyInTheFirstAccessUnit() throws {
        let clip = try VideoClip(count: 30)
        let path = try Self.cliStream(clip, gop: 5, bFrames: 2)
        var samples = try Self.samples(of: AnnexBReader(path: path))
        let parameters = try #require(samples.first?.format.video?.h264)
        let avcc = (parameters.sequenceParameterSets + parameters.pictureParameterSets).flatMap { unit in
            withUnsafeBytes(of: UInt32(unit.count).bigEndian, Array.init) + unit
        }
        samples[0].data = avcc + samples[0].data
        for index in samples.indices {
            guard case .video(var format) = samples[index].format else { continue }
            format.h264 = nil
            samples[index].format = .video(format)
        }
        let frames = try Video.run(H264Decoder(threading: .groupsOfPictures(workers: 2)), samples)
        #expect(frames.map(H264DecoderTests.md5) == (try Video.frameHashes(path)))
    }

    /// A length past the end of a sample is refused at once, with the sample's index, as with frame
    /// threads; no worker, no pixels count or buffer: refused before the first sample is read.
    @Test func badInputAndBadSettingsAreRefused() throws {
        let clip = try VideoClip(count: 3)
        var encoded = try Video.run(try H264Encoder(), clip.frames)
        encoded[1].data = [0, 0, 1, 0] + encoded[1].data
        #expect { try Video.run(H264Decoder(threading: .groupsOfPictures(workers: 2)), encoded) } throws: {
            ($0 as? MediaError)?.sampleIndex == 1 && ($0 as? MediaError)?.code == .truncated
        }
        for threading in [H264Decoder.Threading.groupsOfPictures(workers: 0), .groupsOfPictures(bufferBytes: -1)] {
            #expect { try Video.run(H264Decoder(threading: threading), encoded) } throws: {
                ($0 as? MediaError)?.code == .invalidArgument
            }
        }
    }

    /// A decoder let go of in the middle of a stream, groups in flight, stops and joins its workers
    /// (the kernel no longer lists their threads; the leak gate checks that every FFmpeg object is
    /// freed); the frames it emitted stay valid.
    @Test func aDecoderDroppedMidStreamStopsItsWorkers() throws {
        let clip = try VideoClip(count: 40)
        let path = try Self.cliStream(clip, gop: 4, bFrames: 2)
        let samples = try Self.samples(of: AnnexBReader(path: path))
        var frames: [MediaSample] = []
        var workers: KernelThreads?
        do {
            let decoder = H264Decoder(threading: .groupsOfPictures(workers: 2))
            for sample in samples.prefix(30) { try decoder.process(sample) { frames.append($0) } }
            workers = try Self.runningWorkers(decoder, 2)
        }
        let left = workers?.waitUntilEnded()
        #expect(
            left == [], "worker threads still running after the decoder was dropped: \(String(describing: workers))")
        #expect(frames.count <= 30)
        let hashes = try Video.frameHashes(path)
        #expect(frames.map(H264DecoderTests.md5) == Array(hashes.prefix(frames.count)))
    }

    /// `finish` ends the workers' threads (the decoder still held), and so does letting go of a decoder
    /// after an error.
    @Test func theWorkersEndAtFinishAndAfterAnError() throws {
        let clip = try VideoClip(count: 20)
        let path = try Self.cliStream(clip, gop: 5, bFrames: 2)
        let samples = try Self.samples(of: AnnexBReader(path: path))
        let decoder = H264Decoder(threading: .groupsOfPictures(workers: 3))
        var frames: [MediaSample] = []
        for sample in samples.prefix(3) { try decoder.process(sample) { frames.append($0) } }
        let workers = try Self.runningWorkers(decoder, 3)
        for sample in samples.dropFirst(3) { try decoder.process(sample) { frames.append($0) } }
        try decoder.finish { frames.append($0) }
        #expect(frames.count == 20)
        #expect(decoder.workerThreadIDs.isEmpty)
        #expect(workers.waitUntilEnded().isEmpty, "worker threads still running after finish: \(workers)")
        withExtendedLifetime(decoder) {}

        var damaged = samples
        damaged[7].data = [0, 0, 1, 0] + damaged[7].data  // a length past the end of the sample
        var failed: KernelThreads?
        var failedAt: Int?
        do {
            let decoder = H264Decoder(threading: .groupsOfPictures(workers: 2))
            for (index, sample) in damaged.enumerated() {
                if index == 7 { failed = try Self.runningWorkers(decoder, 2) }
                do {
                    try decoder.process(sample) { _ in }
                } catch is MediaError {
                    failedAt = index
                    break
                }
            }
        }
        #expect(failedAt == 7)
        let left = failed?.waitUntilEnded()
        #expect(
            left == [],
            "worker threads still running after the failed decoder was dropped: \(String(describing: failed))")
    }

    /// The decoder's `count` group-of-pictures workers, once each has started (waits for that); fails
    /// the test when they are not all found running.
    static func runningWorkers(_ decoder: H264Decoder, _ count: Int) throws -> KernelThreads {
        let ids = KernelThreads.waitForIDs(count) { decoder.workerThreadIDs }
        #expect(ids.count == count, "\(ids.count) of \(count) workers started")
        return try #require(KernelThreads(running: ids), "the workers \(ids) are not threads of this process")
    }
}
