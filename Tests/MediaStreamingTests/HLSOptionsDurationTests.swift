import MediaCore
import MediaStreaming
import MediaTestSupport
import Testing

/// `HLSOptions` takes its segment length as a Swift `Duration` too; `.seconds(n)` and `.zero` keep
/// meaning the `MediaTime` they meant.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct HLSOptionsDurationTests {
    @Test func targetSegmentDurationFromADuration() {
        let options = HLSOptions(targetSegmentDuration: .milliseconds(1500))
        #expect(options.targetSegmentDuration == MediaTime(value: 3, timescale: 2))
        let four = HLSOptions(targetSegmentDuration: .seconds(4))
        #expect(four.targetSegmentDuration == MediaTime(value: 4, timescale: 1))
        #expect(HLSOptions().targetSegmentDuration == MediaTime(value: 2, timescale: 1))
    }
}
