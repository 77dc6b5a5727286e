import MediaCore
import Testing

/// `start(at:)`: the frames before `at` are dropped, the first PCM buffer cut at exactly that frame
/// with the source's own times, compressed audio trimmed at the start after a pre-roll packet, video
/// frames dropped by their start; and with `prefix(duration:)`, an exact window.
@Suite(.timeLimit(.minutes(2))) struct SkippingSourceTests {
    let sizes = [1000, 333, 1, 4097, 250]

    @Test func theFirstSampleStartsAtExactlyTheFrame() throws {
        let original = try LimitSignal.pcm(sizes: sizes, startFrame: 123_456)
        var source = try ArraySource(original).start(at: MediaTime(value: 1500, timescale: 48_000))
        let samples = try LimitSignal.drain(&source)

        #expect(samples.map(\.frameCount) == [4097 - 166, 250])
        let first = samples[0]
        #expect(first.timing.presentationTime == MediaTime(value: 123_456 + 1500, timescale: 48_000))
        #expect(first.timing.duration == MediaTime(value: 4097 - 166, timescale: 48_000))
        #expect(first.data == Array(original[3].data.dropFirst(166 * 4)))
        #expect(samples[1] == original[4])
        #expect(try LimitSignal.values(of: samples) == LimitSignal.values(1500..<5681))
    }

    /// ffmpeg's `-ss 0.1 -t 0.2`: 8820 frames from frame 4410 at 44.1 kHz, whatever the buffers.
    @Test func startThenPrefixIsAnExactWindow() throws {
        let original = try LimitSignal.pcm(sizes: Array(repeating: 1024, count: 44), rate: 44_100, startFrame: 7)
        var window = try ArraySource(original).start(at: MediaTime(value: 1, timescale: 10))
            .prefix(duration: MediaTime(value: 2, timescale: 10))
        let samples = try LimitSignal.drain(&window)
        #expect(LimitSignal.frames(of: samples) == 8820)
        #expect(samples.first?.timing.presentationTime == MediaTime(value: 7 + 4410, timescale: 44_100))
        #expect(try LimitSignal.values(of: samples) == LimitSignal.values(4410..<(4410 + 8820)))
    }

    @Test func zeroSkipsNothingAndTheEndComesOnce() throws {
        let original = try LimitSignal.pcm(sizes: sizes)
        var all = try ArraySource(original).start(at: .zero)
        #expect(try LimitSignal.drain(&all) == original)

        let counter = PullCounter()
        var beyond = try CountingSource(original, counter: counter).start(at: .seconds(1))
        #expect(try beyond.next() == nil)
        #expect(try beyond.next() == nil)
        #expect(counter.calls == sizes.count + 1)
    }

    @Test func invalidArgumentsAreRefusedByName() {
        for time in [MediaTime(value: -1, timescale: 1), .invalid, .negativeInfinity] {
            #expect {
                _ = try ArraySource([]).start(at: time)
            } throws: { error in
                (error as? MediaError)?.code == .invalidArgument && "\(error)".contains("at is \(time)")
            }
        }
    }

    /// A packet keeps its bytes; the frames before `at` are trimAtStart, and the packet before it
    /// comes first, wholly trimmed, so that a decoder can rebuild the first (AAC's overlap).
    @Test func compressedAudioIsTrimmedAtTheStartAfterAPreRoll() throws {
        let packets = LimitSignal.aac(count: 6)
        var inside = try ArraySource(packets).start(at: MediaTime(value: 2500, timescale: 44_100))
        let trimmed = try LimitSignal.drain(&inside)
        #expect(trimmed.map(\.data) == packets[1...].map(\.data))
        #expect(trimmed.map(\.trimAtStart) == [1024, 2500 - 2048, 0, 0, 0])
        #expect(trimmed.map(\.timing) == packets[1...].map(\.timing))
        #expect(LimitSignal.frames(of: trimmed) == 6 * 1024 - 2500)

        var onABoundary = try ArraySource(packets).start(at: MediaTime(value: 2048, timescale: 44_100))
        #expect(try LimitSignal.drain(&onABoundary).map(\.trimAtStart) == [1024, 0, 0, 0, 0])

        // Priming is not counted: the skip starts where the audio does.
        var primed = try ArraySource(LimitSignal.aac(count: 4, priming: 1024)).start(
            at: MediaTime(value: 100, timescale: 44_100))
        #expect(try LimitSignal.drain(&primed).map(\.trimAtStart) == [1024, 100, 0, 0])
    }

    @Test func videoFramesThatStartBeforeAreDropped() throws {
        var tenth = try ArraySource(LimitSignal.video(count: 10)).start(at: MediaTime(value: 1, timescale: 10))
        #expect(try LimitSignal.drain(&tenth).map(\.timing.presentationTime.value) == [3, 4, 5, 6, 7, 8, 9])
        var between = try ArraySource(LimitSignal.video(count: 10)).start(at: MediaTime(value: 11, timescale: 100))
        #expect(try LimitSignal.drain(&between).first?.timing.presentationTime.value == 4)

        // Decode order I0 P3 B1 B2 P6 B4 B5: the B-frame at 1 is dropped after P3 was kept.
        let ticks = [(0, -1), (3, 0), (1, 1), (2, 2), (6, 3), (4, 4), (5, 5)]
        var reordered = try ArraySource(LimitSignal.video(ticks: ticks)).start(at: MediaTime(value: 2, timescale: 30))
        #expect(try LimitSignal.drain(&reordered).map(\.timing.presentationTime.value) == [3, 2, 6, 4, 5])
    }

    @Test func errorsPassThroughOnce() throws {
        let failure = MediaError.invalidData("bad frame", at: 12)
        let counter = PullCounter()
        var source = try CountingSource(try LimitSignal.pcm(sizes: [10]), failure: failure, counter: counter)
            .start(at: MediaTime(value: 20, timescale: 48_000))
        #expect(source.name == "CountingSource")
        #expect(throws: failure) { try source.next() }
        #expect(try source.next() == nil)
        #expect(counter.calls == 2)
    }
}
