import Foundation
import MediaAudio
import Testing

/// The meter as a recorder uses it: the stage on a graph thread fed live, the readings polled from
/// another thread every 100 ms.
@Suite(.timeLimit(.minutes(5))) struct LevelMeterGraphTests {
    /// 0.6 s of a −20 dBFS stereo sine, paced in real time through a threaded graph: the polls made
    /// during the run see −20 dB peaks once audio has arrived, the sink gets every sample unchanged,
    /// and the readings after the run are the sine's (−20.0 / −23.0 dB).
    @Test func pollingWhileAThreadedGraphRuns() throws {
        let wave = TestSignal.sine(amplitude: 0.1, frequency: 1_000, sampleRate: 48_000, frames: 28_800)
        let input = TestSignal.samples(
            [wave, wave], format: .s16, splits: Array(stride(from: 960, to: 28_800, by: 960)))
        let meter = try LevelMeter()
        let collector = SampleCollector()
        var graph = MediaGraph()
        let branch = graph.addBranch(source: RealTimeSource(ArraySource(input)), stages: [meter.stage])
        graph.addSink(collector, input: branch)

        var polled: [(channels: Int, peak: Float)] = []
        try graph.runThreaded { _ in
            meter.updateMeters()
            polled.append((meter.channelCount, meter.peakPower(forChannel: 0)))
        }
        #expect(polled.count >= 3)
        let live = polled.filter { $0.channels == 2 }
        #expect(!live.isEmpty)
        #expect(live.allSatisfy { abs($0.peak - -20) < 0.05 }, "\(polled)")
        #expect(collector.samples == input)

        meter.updateMeters()
        #expect(abs(meter.peakPower(forChannel: 1) - -20) < 0.05)
        #expect(abs(meter.averagePower(forChannel: 1) - -23.01) < 0.05)
    }
}
