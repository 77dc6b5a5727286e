import MediaCore
import Testing

/// `MediaTime` ↔ seconds (`Double`) and ↔ `Swift.Duration`, with the rounding each documents.
@Suite(.timeLimit(.minutes(2))) struct MediaTimeConversionTests {
    @Test func durationToMediaTimeIsExactThenReduced() {
        #expect(MediaTime(.seconds(5)) == MediaTime(value: 5, timescale: 1))
        #expect(MediaTime(.seconds(5)).timescale == 1)
        #expect((MediaTime(.milliseconds(1500)).value, MediaTime(.milliseconds(1500)).timescale) == (3, 2))
        #expect((MediaTime(.milliseconds(-250)).value, MediaTime(.milliseconds(-250)).timescale) == (-1, 4))
        #expect(MediaTime(.zero) == .zero)
    }

    @Test func durationToMediaTimeRoundsToTheNearestNanosecond() {
        // 1.4 ns and 1.5 ns: the old conversion truncated the attoseconds (both gave 1 ns).
        let nanosecond = MediaTime(value: 1, timescale: 1_000_000_000)
        #expect(MediaTime(Duration(secondsComponent: 0, attosecondsComponent: 1_400_000_000)) == nanosecond)
        #expect(MediaTime(Duration(secondsComponent: 0, attosecondsComponent: 1_500_000_000)) == nanosecond * 2)
        #expect(MediaTime(Duration(secondsComponent: 0, attosecondsComponent: -1_500_000_000)) == nanosecond * -2)
    }

    @Test func durationAtATimescaleRoundsAsAsked() {
        #expect(MediaTime(.milliseconds(10), timescale: 48_000) == MediaTime(value: 480, timescale: 48_000))
        #expect(MediaTime(.milliseconds(10), timescale: 48_000).timescale == 48_000)
        // 1/3 s at timescale 1000 is 333.33… ticks.
        let third = Duration.nanoseconds(333_333_333) + Duration(secondsComponent: 0, attosecondsComponent: 333_333_334)
        #expect(MediaTime(third, timescale: 1000).value == 333)
        #expect(MediaTime(third, timescale: 1000, rounding: .up).value == 334)
        // Exactly half a tick: away from zero by default, to even when asked.
        #expect(MediaTime(.milliseconds(2500), timescale: 1).value == 3)
        #expect(MediaTime(.milliseconds(2500), timescale: 1, rounding: .toNearestOrEven).value == 2)
        #expect(MediaTime(.milliseconds(3500), timescale: 1, rounding: .toNearestOrEven).value == 4)
        #expect(MediaTime(.milliseconds(-2500), timescale: 1, rounding: .down).value == -3)
        #expect(MediaTime(.milliseconds(-2500), timescale: 1, rounding: .towardZero).value == -2)
        // Large durations do not overflow the intermediate product.
        #expect(MediaTime(.seconds(10_000_000_000), timescale: Int32.max).isNumeric == false)  // > Int64 ticks
        #expect(MediaTime(.seconds(1_000_000), timescale: 1_000_000_000).value == 1_000_000_000_000_000)
        #expect(MediaTime(.seconds(1), timescale: 0) == .invalid)
    }

    @Test func secondsAsDoubleToMediaTime() {
        #expect(MediaTime(seconds: 1.5, timescale: 1000) == MediaTime(value: 1500, timescale: 1000))
        #expect(MediaTime(seconds: 0.1, timescale: 48_000).value == 4800)
        #expect(MediaTime(seconds: 0.5, timescale: 1).value == 1)  // half a tick: away from zero
        #expect(MediaTime(seconds: 0.5, timescale: 1, rounding: .towardZero).value == 0)
        #expect(MediaTime(seconds: -0.5, timescale: 1).value == -1)
        #expect(MediaTime(seconds: .nan, timescale: 1000) == .invalid)
        #expect(MediaTime(seconds: .infinity, timescale: 1000) == .positiveInfinity)
        #expect(MediaTime(seconds: -.infinity, timescale: 1000) == .negativeInfinity)
        #expect(MediaTime(seconds: 1e30, timescale: 1000) == .invalid)
        #expect(MediaTime(seconds: 1, timescale: -1) == .invalid)
    }

    @Test func mediaTimeToSecondsAndDuration() {
        let frame = MediaTime(value: 1001, timescale: 30_000)
        #expect(frame.seconds == 1001.0 / 30_000)
        #expect(frame.duration == .nanoseconds(33_366_667))  // 33 366 666.67 ns, to nearest
        #expect(Duration(frame) == .nanoseconds(33_366_667))
        #expect(MediaTime(value: -1, timescale: 3).duration == .nanoseconds(-333_333_333))
        #expect(MediaTime.invalid.duration == nil)
        #expect(Duration(MediaTime.positiveInfinity) == nil)
        #expect(MediaTime.invalid.seconds == nil)
        // Round trip through Duration for times that are whole nanoseconds.
        for time in [MediaTime(value: 3, timescale: 2), MediaTime(value: 480, timescale: 48_000), .zero] {
            #expect(MediaTime(Duration(time) ?? .zero) == time)
        }
    }
}
