import Foundation
import MediaAudio
import Testing

/// Hold, decay and the averaging window behave as ``LevelMeter`` documents, block by block.
@Suite(.timeLimit(.minutes(2))) struct LevelMeterBallisticsTests {
    /// 10 ms blocks (480 frames at 48 kHz), a 100 ms window, a 200 ms hold, 20 dB/s decay.
    let configuration = LevelMeter.Configuration(
        block: .milliseconds(10), averagingWindow: .milliseconds(100), peakHold: .milliseconds(200), peakDecayRate: 20)

    /// A 50 ms burst at 0.5 (−6.02 dBFS) then 2 s of silence, fed a block at a time: the peak stays at
    /// −6.02 dB for 200 ms after the burst's last block, then falls 0.2 dB per 10 ms block (20 dB/s);
    /// the average is the burst's share of the 100 ms window, then −160 once the window is all silence.
    @Test func burstThenSilenceHoldsThenDecays() throws {
        let meter = try LevelMeter(configuration: configuration)
        let stage = CheckedStage(meter.stage)
        let burstDB = 20 * log10(0.5)
        for block in 0..<205 {
            let value = block < 5 ? 0.5 : 0
            let sample = TestSignal.sample(
                [Array(repeating: value, count: 480)], format: .f32, startFrame: Int64(block * 480))
            try stage.process(sample) { _ in }
            meter.updateMeters()

            let sinceBurst = max(0, block - 4)  // blocks since the end of the burst's last block
            let falling = max(0, sinceBurst - 20)  // 200 ms hold = 20 blocks
            let expectedPeak = burstDB - 0.2 * Double(falling)
            #expect(abs(Double(meter.peakPower(forChannel: 0)) - expectedPeak) < 0.001, "block \(block)")

            let loudBlocks = min(block, 4) - max(0, block - 9) + 1  // burst blocks inside the last 10
            let windowBlocks = min(block + 1, 10)
            let expectedAverage =
                loudBlocks > 0 ? burstDB + 10 * log10(Double(loudBlocks) / Double(windowBlocks)) : -160
            #expect(abs(Double(meter.averagePower(forChannel: 0)) - expectedAverage) < 0.001, "block \(block)")
        }
        #expect(abs(Double(meter.peakPower(forChannel: 0)) - (burstDB - 0.2 * 180)) < 0.001)  // −42.02 after 2 s
    }

    /// During the decay, a block peak below the falling reading is ignored and one above it is taken
    /// and held again; a decay rate of 0 holds the largest peak for ever.
    @Test func newPeaksAreTakenOnlyAboveTheFallingReading() throws {
        /// A helper, not a test: the peak reading after each 10 ms block of `values`.
        func levels(_ values: [(value: Double, blocks: Int)], _ configuration: LevelMeter.Configuration) throws
            -> [Float]
        {
            let meter = try LevelMeter(configuration: configuration)
            let stage = CheckedStage(meter.stage)
            var readings: [Float] = []
            for (value, blocks) in values {
                for _ in 0..<blocks {
                    try stage.process(TestSignal.sample([Array(repeating: value, count: 480)], format: PCMFormat(.f64)))
                    { _ in }
                    meter.updateMeters()
                    readings.append(meter.peakPower(forChannel: 0))
                }
            }
            return readings
        }
        // 1 block at 0 dB; 70 blocks at −40 dB: hold for 20 blocks, then 50 blocks falling to −10 dB.
        let falling = try levels([(1.0, 1), (0.01, 70), (0.1, 1), (0.5, 1)], configuration)
        #expect(abs(falling[70] - -10.0) < 0.001)
        #expect(abs(falling[71] - -10.2) < 0.001)  // −20 dB block: below the reading, ignored
        #expect(abs(falling[72] - -6.0206) < 0.001)  // −6.02 dB block: above it, taken
        var forever = configuration
        forever.peakDecayRate = 0
        let held = try levels([(1.0, 1), (0, 300)], forever)
        #expect(held.allSatisfy { $0 == 0 })
    }

    /// Readings change only when `updateMeters()` is called; before any audio there are no channels
    /// and every reading is −160; digital silence reads −160 in every sample type.
    @Test func readingsChangeOnlyOnUpdate() throws {
        let meter = try LevelMeter()
        #expect(meter.channelCount == 0)
        #expect(meter.peakPower(forChannel: 0) == -160)
        #expect(meter.levelMeterStates.isEmpty)
        let stage = CheckedStage(meter.stage)
        let loud = TestSignal.sine(amplitude: 0.5, frequency: 1_000, sampleRate: 48_000, frames: 4_800)
        try stage.process(TestSignal.sample([loud, loud], format: .s16)) { _ in }
        #expect(meter.channelCount == 0)
        #expect(meter.averagePower(forChannel: 0) == -160)
        meter.updateMeters()
        #expect(meter.channelCount == 2)
        let before = meter.levelMeterStates
        #expect(abs(meter.peakPower(forChannel: 1) - -6.02) < 0.05)

        // 2 s of silence: past the 300 ms window; the peak held 500 ms, then 1.5 s at 20 dB per 1.7 s.
        let silence = Array(repeating: 0.0, count: 96_000)
        try stage.process(TestSignal.sample([silence, silence], format: .s16)) { _ in }
        #expect(meter.levelMeterStates == before)
        meter.updateMeters()
        #expect(meter.levelMeterStates.map(\.averagePower) == [0, 0])
        #expect(meter.averagePower(forChannel: 0) == -160)
        #expect(abs(Double(meter.peakPower(forChannel: 0)) - (20 * log10(0.5) - 1.5 * 20 / 1.7)) < 0.01)

        for type in PCMSampleType.allCases {
            let quiet = try TestSignal.metered([
                TestSignal.sample([Array(repeating: 0, count: 960)], format: PCMFormat(type))
            ])
            #expect(quiet.peakPower(forChannel: 0) == -160, "\(type)")
            #expect(quiet.averagePower(forChannel: 0) == -160, "\(type)")
        }
    }
}
