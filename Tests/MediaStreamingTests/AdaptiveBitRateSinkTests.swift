import Dispatch
import MediaCore
import MediaStreaming
import MediaTestSupport
import Testing

/// A LiveStreamSink runs its AdaptiveBitRate: asks the policy at most once per interval, on the
/// writer's side, while the sender is stuck (an inner sink that holds its first write).
@Suite(.timeLimit(.minutes(2))) struct AdaptiveBitRateSinkTests {
    typealias GatedSink = LiveStreamSinkTests.GatedSink

    /// Video frame `i` at 10 fps; only frame 0 is a keyframe (so nothing is dropped under 0.5 s).
    static func frame(_ i: Int) -> MediaSample {
        let time = MediaTime(value: Int64(i), timescale: 10)
        return MediaSample(
            format: videoFormat, data: [UInt8(i)],
            timing: SampleTiming(
                presentationTime: time, decodeTime: time, duration: MediaTime(value: 1, timescale: 10)),
            frameCount: 0, flags: i == 0 ? [.keyframe] : [])
    }

    /// A policy that takes 1 b/s off per call: the control's drop counts the calls.
    struct CountingPolicy: BitRatePolicy {
        mutating func bitRate(after observation: BitRateObservation) -> Int? { observation.bitRate - 1 }
    }

    /// A policy that answers far below the control's range.
    struct TooLowPolicy: BitRatePolicy {
        mutating func bitRate(after observation: BitRateObservation) -> Int? { 5 }
    }

    /// The host clock the sink's decisions read, moved by hand: 0 until `stall` moves it.
    final class HandClock: Sendable {
        let box = LockedBox(MediaTime.zero)
        /// `adaptive`, timed by this clock.
        func driving(_ adaptive: AdaptiveBitRate) -> AdaptiveBitRate {
            var adaptive = adaptive
            adaptive.hostClock = { [box] in box.value }
            return adaptive
        }
    }

    /// Begins `live`, has the sender hold frame 0, writes `frames` 1 ms of `clock` apart, moves the
    /// clock to `pause` ms, writes `then`.
    static func stall(
        _ live: LiveStreamSink, _ inner: GatedSink, clock: HandClock, frames: Range<Int>, pause: Int64,
        then more: Range<Int>
    ) throws {
        try live.begin(tracks: [videoFormat])
        try live.write(frame(0), track: 0)
        #expect(inner.entered.wait(timeout: .now() + 5) == .success)
        for i in frames {
            clock.box.value = MediaTime(value: Int64(i), timescale: 1000)
            try live.write(frame(i), track: 0)
        }
        clock.box.value = MediaTime(value: pause, timescale: 1000)
        for i in more { try live.write(frame(i), track: 0) }
    }

    @Test func theDefaultPolicyLowersTheControlWhenTheQueueFills() throws {
        let inner = GatedSink()
        let control = try BitRateControl(bitRate: 1_000_000), clock = HandClock()
        let live = try LiveStreamSink(
            inner, clock: MediaClock(), maxQueueDuration: MediaTime(value: 1, timescale: 2),
            adaptiveBitRate: clock.driving(AdaptiveBitRate(control: control)))
        #expect(live.bitRateControl === control)
        // Frames 1-4 queue 0.3 s (60 %) behind the held frame; the next decision is due 250 ms after the
        // first (at frame 0, queue empty); frame 5 (80 %) comes after it.
        try Self.stall(live, inner, clock: clock, frames: 1..<5, pause: 350, then: 5..<6)
        #expect(control.bitRate == 750_000)
        inner.gate.signal()
        try live.finish()
        #expect(live.stats.droppedFrames == 0)
        #expect(inner.received.count == 6)
    }

    @Test func thePolicyIsAskedAtMostOncePerInterval() throws {
        let inner = GatedSink()
        let control = try BitRateControl(bitRate: 1_000_000), clock = HandClock()
        var adaptive = AdaptiveBitRate(control: control, policy: CountingPolicy())
        adaptive.interval = MediaTime(value: 1, timescale: 2)  // 500 ms
        let live = try LiveStreamSink(
            inner, clock: MediaClock(), maxQueueDuration: .seconds(2), adaptiveBitRate: clock.driving(adaptive))
        // 4 writes within 3 ms: one call (the first write); 3 more at 600 ms: one more.
        try Self.stall(live, inner, clock: clock, frames: 1..<4, pause: 600, then: 4..<7)
        #expect(control.bitRate == 1_000_000 - 2)
        inner.gate.signal()
        try live.finish()
    }

    @Test func answersAreClampedToTheControlsRange() throws {
        let inner = GatedSink()
        let control = try BitRateControl(bitRate: 1_000_000)
        let live = try LiveStreamSink(
            inner, clock: MediaClock(), adaptiveBitRate: AdaptiveBitRate(control: control, policy: TooLowPolicy()))
        try Self.stall(live, inner, clock: HandClock(), frames: 1..<2, pause: 0, then: 2..<2)
        #expect(control.bitRate == BitRateControl.validRange.lowerBound)
        inner.gate.signal()
        try live.finish()
    }

    @Test func offByDefault() throws {
        let inner = GatedSink()
        let live = try LiveStreamSink(inner, clock: MediaClock())
        #expect(live.bitRateControl == nil)
        let explicit = try LiveStreamSink(GatedSink(), clock: MediaClock(), adaptiveBitRate: nil)
        #expect(explicit.bitRateControl == nil)
        try live.finish()
        try explicit.finish()
    }
}
