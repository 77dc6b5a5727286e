import MediaCore
import Testing

/// `prefix(frames:)` and `prefix(duration:)`: exactly the frames asked for, the last buffer cut to its
/// first bytes with its timing to match, a compressed packet trimmed instead, video frames kept by
/// their start, and the wrapped source never read past the limit.
@Suite(.timeLimit(.minutes(2))) struct PrefixSourceTests {
    /// Buffers of odd sizes: 1000 + 333 + 1 + 4097 + 250 = 5681 frames.
    let sizes = [1000, 333, 1, 4097, 250]

    @Test func framesAreExactAndTheLastBufferIsItsFirstBytes() throws {
        let original = try LimitSignal.pcm(sizes: sizes, startFrame: 123_456)
        let counter = PullCounter()
        var source = try CountingSource(original, counter: counter).prefix(frames: 1500)
        let samples = try LimitSignal.drain(&source)

        #expect(samples.map(\.frameCount) == [1000, 333, 1, 166])
        #expect(Array(samples[0..<3]) == Array(original[0..<3]))  // untouched before the cut
        let cut = samples[3]
        #expect(cut.data == Array(original[3].data.prefix(166 * 4)))
        #expect(cut.timing.presentationTime == original[3].timing.presentationTime)
        #expect(cut.timing.duration == MediaTime(value: 166, timescale: 48_000))
        #expect(try LimitSignal.values(of: samples) == LimitSignal.values(0..<1500))
        // The fourth pull reached the limit: no fifth, not even after more calls.
        #expect(try source.next() == nil)
        #expect(counter.calls == 4)
    }

    @Test func planarBuffersAreCutInEveryPlane() throws {
        let original = try LimitSignal.pcm(sizes: [700, 700], planar: true)
        var source = try ArraySource(original).prefix(frames: 1000)
        let samples = try LimitSignal.drain(&source)
        #expect(samples.map(\.frameCount) == [700, 300])
        #expect(samples[1].planes == original[1].planes.map { Array($0.prefix(600)) })
        #expect(samples[1].timing.duration == MediaTime(value: 300, timescale: 48_000))
    }

    /// Duration counts from the first sample's time, however late the clock started it, in frames
    /// that start before the end: ⌈duration × rate⌉.
    @Test func durationIsExactFromTheFirstSample() throws {
        let original = try LimitSignal.pcm(sizes: Array(repeating: 1024, count: 10), rate: 44_100, startFrame: 98_765)
        var tenth = try ArraySource(original).prefix(duration: MediaTime(value: 1, timescale: 10))
        let samples = try LimitSignal.drain(&tenth)
        #expect(LimitSignal.frames(of: samples) == 4410)
        let last = try #require(samples.last)
        #expect(last.frameCount == 4410 - 4 * 1024)
        #expect(
            last.timing.presentationTime + last.timing.duration
                == original[0].timing.presentationTime + MediaTime(value: 1, timescale: 10))

        // 1 ms at 44.1 kHz is 44.1 frames: the 45 that start within it.
        var millisecond = try ArraySource(original).prefix(duration: MediaTime(value: 1, timescale: 1000))
        #expect(LimitSignal.frames(of: try LimitSignal.drain(&millisecond)) == 45)
    }

    @Test func aSourceShorterThanTheLimitIsHandedOutWhole() throws {
        let original = try LimitSignal.pcm(sizes: sizes)
        let counter = PullCounter()
        var source = try CountingSource(original, counter: counter).prefix(duration: .seconds(10))
        #expect(try LimitSignal.drain(&source) == original)
        #expect(try source.next() == nil)
        #expect(counter.calls == sizes.count + 1)  // the samples, then the end once
    }

    @Test func aLimitOnABufferBoundaryReadsNoFurther() throws {
        let counter = PullCounter()
        var source = try CountingSource(try LimitSignal.pcm(sizes: sizes), counter: counter).prefix(frames: 1334)
        #expect(try LimitSignal.drain(&source).map(\.frameCount) == [1000, 333, 1])
        #expect(counter.calls == 3)
    }

    @Test func zeroReadsNothing() throws {
        let counter = PullCounter()
        let original = try LimitSignal.pcm(sizes: sizes)
        var none = try CountingSource(original, counter: counter).prefix(frames: 0)
        #expect(try none.next() == nil)
        var noTime = try CountingSource(original, counter: counter).prefix(duration: .zero)
        #expect(try noTime.next() == nil)
        #expect(counter.calls == 0)
    }

    @Test func invalidArgumentsAreRefusedByName() throws {
        let source = ArraySource([])
        #expect(throws: MediaError.self) { _ = try source.prefix(frames: -1) }
        for (duration, shown) in [
            (MediaTime(value: -1, timescale: 48_000), "-0.000021 s (-1/48000)"), (.invalid, "invalid"),
            (.positiveInfinity, "+inf")
        ] {
            #expect {
                _ = try source.prefix(duration: duration)
            } throws: { error in
                let error = try #require(error as? MediaError)
                return error.code == .invalidArgument && error.message.contains("duration is \(shown)")
            }
        }
        #expect {
            _ = try source.prefix(frames: -5)
        } throws: { error in
            (error as? MediaError)?.code == .invalidArgument && "\(error)".contains("frames is -5")
        }
    }

    /// A packet cannot be cut: it is kept, its frames past the limit marked trimAtEnd, so a decoder
    /// plays exactly the limit. Priming (trimAtStart) is not counted.
    @Test func compressedAudioIsTrimmedAtTheEnd() throws {
        let packets = LimitSignal.aac(count: 8, priming: 1024)
        var frames = try ArraySource(packets).prefix(frames: 1500)
        let limited = try LimitSignal.drain(&frames)
        #expect(limited.count == 3)
        #expect(limited.map(\.trimAtEnd) == [0, 0, 548])  // 1024 + 476 frames play
        #expect(limited[2].frameCount == 1024 && limited[2].data == packets[2].data)
        #expect(limited[2].timing == packets[2].timing)
        #expect(LimitSignal.frames(of: limited) == 1500)

        var tenth = try ArraySource(packets).prefix(duration: MediaTime(value: 1, timescale: 10))
        let timed = try LimitSignal.drain(&tenth)
        #expect(LimitSignal.frames(of: timed) == 4410)
        #expect(timed.last?.trimAtEnd == 5 * 1024 - 4410)
    }

    /// A video frame is kept when it starts before the end; frames are never cut.
    @Test func videoFramesAreKeptByTheirStart() throws {
        let counter = PullCounter()
        var tenth = try CountingSource(LimitSignal.video(count: 10), counter: counter)
            .prefix(duration: MediaTime(value: 1, timescale: 10))
        #expect(try LimitSignal.drain(&tenth).map(\.timing.presentationTime.value) == [0, 1, 2])
        // The third frame ends at the limit: the camera is not waited on for a fourth.
        #expect(counter.calls == 3)

        var longer = try ArraySource(LimitSignal.video(count: 10)).prefix(
            duration: MediaTime(value: 11, timescale: 100))
        #expect(try LimitSignal.drain(&longer).count == 4)  // the fourth starts at 0.1 s < 0.11 s

        counter.calls = 0
        var pictures = try CountingSource(LimitSignal.video(count: 10), counter: counter).prefix(frames: 2)
        #expect(try LimitSignal.drain(&pictures).count == 2)
        #expect(counter.calls == 2)
    }

    /// With B-frames (decode order I0 P3 B1 B2 P6 B4 B5), a frame's end says nothing of the next
    /// one's start: the source ends at the first frame that starts at or after the limit.
    @Test func reorderedVideoEndsAtTheFirstFrameStartingAfter() throws {
        let ticks = [(0, -1), (3, 0), (1, 1), (2, 2), (6, 3), (4, 4), (5, 5)]
        var source = try ArraySource(LimitSignal.video(ticks: ticks)).prefix(
            duration: MediaTime(value: 4, timescale: 30))
        #expect(try LimitSignal.drain(&source).map(\.timing.presentationTime.value) == [0, 3, 1, 2])
    }

    @Test func errorsPassThroughAndNameTheRealSource() throws {
        let failure = MediaError.truncated("frame 3", needed: 10, available: 4, at: 30)
        let counter = PullCounter()
        var source = try CountingSource(try LimitSignal.pcm(sizes: [10]), failure: failure, counter: counter)
            .prefix(frames: 100)
        #expect(source.name == "CountingSource")
        _ = try source.next()
        #expect(throws: failure) { try source.next() }
        #expect(try source.next() == nil)
        #expect(counter.calls == 2)

        // A driver stamps the wrapper's errors with the real source's name.
        var pipeline = Pipeline(
            source: try CountingSource([], failure: failure).prefix(frames: 5), sink: CollectingSink())
        #expect {
            try pipeline.run()
        } throws: { error in (error as? MediaError)?.stage == "CountingSource" }
    }

    /// Samples that cannot be counted are an error, not a trap or a wrong count.
    @Test func uncountableSamplesAreErrors() throws {
        var pcm = try LimitSignal.pcm(sizes: [100])[0]
        pcm.frameCount = 200  // more frames than bytes
        var huge = pcm
        huge.frameCount = .max
        var noFrames = LimitSignal.aac(count: 1)[0]
        noFrames.frameCount = 0
        var badTrims = LimitSignal.aac(count: 1)[0]
        badTrims.trimAtEnd = 2000
        var untimedVideo = LimitSignal.video(count: 1)[0]
        untimedVideo.timing = .invalid
        for (sample, limit) in [
            (pcm, 50), (huge, 50), (noFrames, 50), (badTrims, 50)
        ] {
            var source = try ArraySource([sample]).prefix(frames: Int64(limit))
            #expect {
                _ = try source.next()
            } throws: { error in (error as? MediaError)?.code == .invalidData }
        }
        var video = try ArraySource([untimedVideo]).prefix(duration: .seconds(1))
        #expect {
            _ = try video.next()
        } throws: { error in (error as? MediaError)?.code == .invalidData }
    }

    /// A source held as `any MediaSource` can be limited too, and a wrapper of a `Sendable` source is
    /// `Sendable`.
    @Test func worksOnExistentialsAndStaysSendable() throws {
        var source: any MediaSource = ArraySource(try LimitSignal.pcm(sizes: sizes))
        source = try source.prefix(frames: 10)
        #expect(try source.next()?.frameCount == 10)
        #expect(try source.next() == nil)

        let sendable: any Sendable = try SendableSource().prefix(frames: 1)
        #expect(sendable is PrefixSource<SendableSource>)
    }
}

/// A source that is `Sendable`, as a capture is.
struct SendableSource: MediaSource, Sendable {
    mutating func next() throws -> MediaSample? { nil }
}
