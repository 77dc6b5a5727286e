import MediaCore
import Testing

@Suite(.timeLimit(.minutes(2))) struct MediaTimeTests {
    @Test func equalityIsByInstantAcrossTimescales() {
        #expect(MediaTime(value: 1, timescale: 2) == MediaTime(value: 2, timescale: 4))
        #expect(MediaTime(value: 1, timescale: 2).hashValue == MediaTime(value: 24_000, timescale: 48_000).hashValue)
        #expect(MediaTime(value: 1, timescale: 3) != MediaTime(value: 333, timescale: 1000))
        #expect(MediaTime(value: -1, timescale: 44_100) < .zero)
    }

    @Test func additionIsExactAtTheCommonTimescale() {
        let sum = MediaTime(value: 1024, timescale: 44_100) + MediaTime(value: 1, timescale: 48_000)
        // lcm(44100, 48000) = 7_056_000
        #expect(sum.timescale == 7_056_000)
        #expect(sum.value == 1024 * 160 + 147)
        #expect(
            MediaTime(value: 3, timescale: 10) - MediaTime(value: 1, timescale: 5) == MediaTime(value: 1, timescale: 10)
        )
        #expect(MediaTime(value: 1024, timescale: 48_000) * 3 == MediaTime(value: 3072, timescale: 48_000))
    }

    @Test func additionFallsBackToTheLargerTimescaleWhenTheLCMOverflows() {
        let a = MediaTime(value: 1, timescale: 2_147_483_647)  // prime
        let b = MediaTime(value: 1, timescale: 2_147_483_629)  // another prime
        let sum = a + b
        #expect(sum.timescale == 2_147_483_647)
        #expect(sum.isNumeric)
        #expect(sum.value == 2)  // 1 + 1.0000000084 rounded to nearest
    }

    @Test(arguments: [
        (FloatingPointRoundingRule.towardZero, Int64(2), Int64(-2)),
        (.awayFromZero, 3, -3),
        (.down, 2, -3),
        (.up, 3, -2),
        (.toNearestOrAwayFromZero, 3, -3),
        (.toNearestOrEven, 2, -2)
    ])
    func conversionRoundsAsAsked(rule: FloatingPointRoundingRule, positive: Int64, negative: Int64) {
        // 5/2 at timescale 2 → timescale 1 is exactly 2.5 ticks: the rule decides.
        #expect(MediaTime(value: 5, timescale: 2).converted(to: 1, rounding: rule).value == positive)
        #expect(MediaTime(value: -5, timescale: 2).converted(to: 1, rounding: rule).value == negative)
    }

    @Test func conversionOfNonTies() {
        let t = MediaTime(value: 1024, timescale: 44_100)
        #expect(t.converted(to: 1000).value == 23)  // 23.22 ms
        #expect(t.converted(to: 1000, rounding: .up).value == 24)
        #expect(t.converted(to: 48_000).value == 1115)  // 1114.56
        #expect(!t.isExactlyRepresentable(at: 48_000))
        #expect(t.isExactlyRepresentable(at: 88_200))
    }

    @Test func specialValues() {
        #expect((MediaTime.invalid + .zero) == .invalid)
        #expect(!(MediaTime.invalid + .zero).isValid)
        #expect(MediaTime.positiveInfinity + MediaTime(value: 5, timescale: 1) == .positiveInfinity)
        #expect(!(MediaTime.positiveInfinity + .negativeInfinity).isValid)
        #expect(-MediaTime.positiveInfinity == .negativeInfinity)
        #expect(MediaTime.negativeInfinity < MediaTime(value: Int64.min, timescale: 1))
        #expect(MediaTime(value: Int64.max, timescale: 1) < .positiveInfinity)
        #expect(!MediaTime(value: 1, timescale: 0).isValid)
        #expect(MediaTime.positiveInfinity.converted(to: 1000) == .positiveInfinity)
    }

    @Test func overflowGivesInvalidNotATrap() {
        let big = MediaTime(value: Int64.max - 1, timescale: 1)
        #expect(!(big + MediaTime(value: 5, timescale: 1)).isValid)
        #expect(!(big * 3).isValid)
        #expect(!big.converted(to: 1_000_000).isValid)
        #expect(!(-MediaTime(value: Int64.min, timescale: 1)).isValid)
    }

    @Test func descriptionIsInSecondsWithTheRatioWhenRounded() {
        #expect(MediaTime(value: 1024, timescale: 48_000).description == "0.021333 s (1024/48000)")
        #expect(MediaTime(value: 3, timescale: 2).description == "1.5 s")
        #expect(MediaTime(value: 96_000, timescale: 48_000).description == "2 s")
        #expect(MediaTime(value: -1, timescale: 4).description == "-0.25 s")
        #expect(MediaTime(value: 1, timescale: 90_000).description == "0.000011 s (1/90000)")
        #expect(MediaTime(value: -2, timescale: 3).description == "-0.666667 s (-2/3)")
        #expect(MediaTime(value: 1, timescale: 3_000_000).description == "0 s (1/3000000)")
        #expect(MediaTime(value: Int64.max, timescale: 1).description.hasSuffix(" s (9223372036854775807/1)"))
        #expect(MediaTime.zero.description == "0 s")
        #expect(MediaTime.invalid.description == "invalid")
        #expect(MediaTime.positiveInfinity.description == "+inf")
    }

    @Test func approximateSecondsIsCMTimeSeconds() {
        #expect(MediaTime(value: 3, timescale: 2).approximateSeconds == 1.5)
        #expect(MediaTime.invalid.approximateSeconds.isNaN)
        #expect(MediaTime.positiveInfinity.approximateSeconds == .infinity)
        #expect(MediaTime.negativeInfinity.approximateSeconds == -.infinity)
    }

    @Test func ratesAndAspectRatiosInLowestTerms() {
        #expect(FrameRate.reduced(50, 2) == FrameRate(25, 1))
        #expect(FrameRate.reduced(60000, 2002) == FrameRate(30000, 1001))
        #expect(FrameRate.reduced(0, 1) == nil)
        #expect(FrameRate.reduced(1, -1) == nil)
        #expect(FrameRate.reduced(Int64(Int32.max) + 1, 1) == nil)
        #expect(FrameRate.reduced(2 * (Int64(Int32.max) + 1), 2) == nil)
        #expect(FrameRate.reduced(2 * Int64(Int32.max), 2) == FrameRate(Int32.max, 1))
        #expect(PixelAspectRatio.reduced(320 * 240, 160 * 240) == PixelAspectRatio(2, 1))
        #expect(PixelAspectRatio.reduced(12, 11) == PixelAspectRatio(12, 11))
        #expect(PixelAspectRatio.reduced(-1, 1) == nil)
    }
}
