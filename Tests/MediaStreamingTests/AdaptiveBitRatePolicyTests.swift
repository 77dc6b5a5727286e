import MediaCore
import MediaStreaming
import Testing

/// The default policy's decisions on synthetic stats: a 2-s queue, times in host milliseconds.
@Suite(.timeLimit(.minutes(2))) struct AdaptiveBitRatePolicyTests {
    static let limit = MediaTime.seconds(2)

    /// The observation of a queue `depth` full (fraction of the limit) with `dropped` frames dropped so
    /// far, at `rate`, `ms` milliseconds in.
    static func at(_ ms: Int64, depth: Double, dropped: Int = 0, rate: Int) -> BitRateObservation {
        var stats = LiveStreamSink.Stats()
        stats.queueSeconds = depth * 2
        stats.droppedFrames = dropped
        return BitRateObservation(
            stats: stats, queueLimit: limit, bitRate: rate, time: MediaTime(value: ms, timescale: 1000))
    }

    @Test func lowersByAQuarterWhenTheQueueIsOverHalfFullAtMostOncePerSecond() throws {
        var policy = try QueueDepthBitRatePolicy(ceiling: 2_000_000)
        #expect(policy.bitRate(after: Self.at(0, depth: 0.4, rate: 2_000_000)) == nil)
        #expect(policy.bitRate(after: Self.at(250, depth: 0.6, rate: 2_000_000)) == 1_500_000)
        // Within a second of the change: nothing, however full.
        #expect(policy.bitRate(after: Self.at(500, depth: 0.9, rate: 1_500_000)) == nil)
        #expect(policy.bitRate(after: Self.at(1000, depth: 0.95, rate: 1_500_000)) == nil)
        // A second later, still growing: again.
        #expect(policy.bitRate(after: Self.at(1250, depth: 0.7, rate: 1_500_000)) == 1_125_000)
    }

    @Test func aDrainingQueueIsLeftToDrain() throws {
        var policy = try QueueDepthBitRatePolicy(ceiling: 2_000_000)
        #expect(policy.bitRate(after: Self.at(0, depth: 0.8, rate: 2_000_000)) == 1_500_000)
        // Over half, but shrinking since the lowering: the new rate is working.
        #expect(policy.bitRate(after: Self.at(1000, depth: 0.7, rate: 1_500_000)) == nil)
        #expect(policy.bitRate(after: Self.at(2000, depth: 0.55, rate: 1_500_000)) == nil)
        // Growing back past the depth of the lowering: lower again.
        #expect(policy.bitRate(after: Self.at(3000, depth: 0.85, rate: 1_500_000)) == 1_125_000)
    }

    @Test func lowersOnANewDropEvenWithAShortQueue() throws {
        var policy = try QueueDepthBitRatePolicy(ceiling: 1_000_000)
        #expect(policy.bitRate(after: Self.at(0, depth: 0.2, dropped: 0, rate: 1_000_000)) == nil)
        #expect(policy.bitRate(after: Self.at(250, depth: 0.2, dropped: 12, rate: 1_000_000)) == 750_000)
        // The same count later is not a new drop.
        #expect(policy.bitRate(after: Self.at(1500, depth: 0.2, dropped: 12, rate: 750_000)) == nil)
        // Drops during the rate limit are remembered until a decision may be made.
        #expect(policy.bitRate(after: Self.at(1750, depth: 0.2, dropped: 20, rate: 750_000)) == 562_500)
        #expect(policy.bitRate(after: Self.at(2000, depth: 0.2, dropped: 25, rate: 562_500)) == nil)
        #expect(policy.bitRate(after: Self.at(2750, depth: 0.2, dropped: 25, rate: 562_500)) == 421_875)
    }

    @Test func neverLowersBelowTheFloor() throws {
        var policy = try QueueDepthBitRatePolicy(ceiling: 2_000_000)
        #expect(policy.floor == 250_000)
        var rate = 2_000_000
        var rates: [Int] = []
        for second in 0..<12 {
            if let next = policy.bitRate(
                after: Self.at(Int64(second) * 1000, depth: 1, dropped: second + 1, rate: rate))
            {
                rate = next
                rates.append(next)
            }
        }
        #expect(rates == [1_500_000, 1_125_000, 843_750, 632_812, 474_609, 355_956, 266_967, 250_000])
        let custom = try QueueDepthBitRatePolicy(ceiling: 2_000_000, floor: 1_800_000)
        var bounded = custom
        #expect(bounded.bitRate(after: Self.at(0, depth: 1, dropped: 1, rate: 2_000_000)) == 1_800_000)
    }

    @Test func raisesByATenthAfterFiveCalmSecondsAndHoldsAgainAfterEachRaise() throws {
        var policy = try QueueDepthBitRatePolicy(ceiling: 2_000_000)
        var raises: [(ms: Int64, rate: Int)] = []
        var rate = 1_000_000
        for tick in 0...60 {  // 15 s, every 250 ms, queue at 5 %
            let ms = Int64(tick) * 250
            if let next = policy.bitRate(after: Self.at(ms, depth: 0.05, rate: rate)) {
                rate = next
                raises.append((ms, next))
            }
        }
        // Calm from 0 ms: the first raise at 5 s; the hold restarts at the next observation (5.25 s).
        let raiseTimes: [Int64] = [5000, 10250, 15500].filter { (ms: Int64) -> Bool in ms <= 15000 }
        #expect(raises.map(\.ms) == raiseTimes)
        #expect(raises.map(\.rate) == [1_100_000, 1_210_000])
    }

    @Test func aBusyMomentRestartsTheHold() throws {
        var policy = try QueueDepthBitRatePolicy(ceiling: 2_000_000)
        #expect(policy.bitRate(after: Self.at(0, depth: 0.05, rate: 1_000_000)) == nil)
        #expect(policy.bitRate(after: Self.at(3000, depth: 0.3, rate: 1_000_000)) == nil)  // neither calm nor congested
        #expect(policy.bitRate(after: Self.at(3250, depth: 0.05, rate: 1_000_000)) == nil)
        #expect(policy.bitRate(after: Self.at(8000, depth: 0.05, rate: 1_000_000)) == nil)
        #expect(policy.bitRate(after: Self.at(8250, depth: 0.05, rate: 1_000_000)) == 1_100_000)
    }

    @Test func neverRaisesAboveTheCeiling() throws {
        var policy = try QueueDepthBitRatePolicy(ceiling: 2_000_000)
        #expect(policy.bitRate(after: Self.at(0, depth: 0, rate: 1_950_000)) == nil)
        #expect(policy.bitRate(after: Self.at(5000, depth: 0, rate: 1_950_000)) == 2_000_000)
        #expect(policy.bitRate(after: Self.at(20000, depth: 0, rate: 2_000_000)) == nil)
        #expect(policy.bitRate(after: Self.at(40000, depth: 0, rate: 2_000_000)) == nil)
    }

    @Test func refusesACeilingOutOfRangeOrAFloorAboveIt() {
        #expect { try QueueDepthBitRatePolicy(ceiling: 0) } throws: { ($0 as? MediaError)?.code == .invalidArgument }
        #expect { try QueueDepthBitRatePolicy(ceiling: 1_000_000, floor: 2_000_000) } throws: {
            ($0 as? MediaError)?.code == .invalidArgument
        }
        #expect { try QueueDepthBitRatePolicy(ceiling: 1_000_000, floor: 999) } throws: {
            ($0 as? MediaError)?.code == .invalidArgument
        }
    }
}
