import MediaAudio
import MediaTestSupport
import Testing

/// PanStage's constant-power placement of mono into stereo (`mono: .constantPowerStereo`).
// The limit catches a hang (a DSP loop that never ends), not slowness: the suites take about 16 s under
// ThreadSanitizer alone, but in the fresh-clone CI's parallel TSan run on two cores they waited past one
// minute behind the heavier suites (2026-11-25), so the limit is five.
@Suite(.timeLimit(.minutes(5))) struct PanStageMonoTests {
    let sine = PlaybackSignals.tones([440], seconds: 1)

    func place(_ pan: Double, planar: Bool = false) throws -> [MediaSample] {
        var stage = PanStage(pan: .pan(pan), mono: .constantPowerStereo)
        return try PlaybackSignals.run(&stage, PlaybackSignals.samples(sine, channels: 1, planar: planar))
    }

    /// Pan 0: both sides 3.01 dB below the input, by sox; the output is stereo.
    @Test func centreIsMinusThreeDecibelsEachSideBySox() throws {
        let dir = try TemporaryDirectory()
        let out = try place(0)
        #expect(out.first?.format.audio?.channelCount == 2)
        let stats = try PlaybackJudges.soxStats(PlaybackSignals.values(out), channels: 2, in: dir)
        let peak = try #require(stats["Pk lev dB"])
        #expect(abs(peak[1] - (-6.02 - 3.01)) < 0.05 && abs(peak[2] - (-6.02 - 3.01)) < 0.05, "\(peak)")
    }

    /// Pan −1: the left is the input, the right below −60 dBFS by sox; pan +1 mirrors it.
    @Test func endsPutTheSourceOnOneSide() throws {
        let dir = try TemporaryDirectory()
        let left = PlaybackSignals.values(try place(-1))
        let right = PlaybackSignals.values(try place(1))
        #expect(PlaybackSignals.channel(0, of: left, channels: 2) == sine)
        #expect(PlaybackSignals.channel(1, of: right, channels: 2) == sine)
        #expect(try #require(try PlaybackJudges.soxStats(left, channels: 2, in: dir)["RMS lev dB"])[2] < -60)
        #expect(try #require(try PlaybackJudges.soxStats(right, channels: 2, in: dir)["RMS lev dB"])[1] < -60)
    }

    /// The law keeps the power: left² + right² = 1 at every pan.
    @Test func powerIsConstant() {
        for pan in stride(from: -1.0, through: 1, by: 0.125) {
            let g = PanStage.constantPowerGains(pan: pan)
            #expect(abs(g.left * g.left + g.right * g.right - 1) < 1e-12)
        }
    }

    /// Planar mono becomes planar stereo with the same values.
    @Test func planarMatchesInterleaved() throws {
        let planar = try place(0.3, planar: true)
        #expect(planar.first?.planeCount == 2)
        #expect(PlaybackSignals.values(planar) == PlaybackSignals.values(try place(0.3)))
    }

    /// A jump from −1 to +1 on DC moves each side by at most π/4 × 2 / 960 per frame.
    @Test func changeIsRamped() throws {
        let pan = AudioParameter.pan(-1)
        var stage = PanStage(pan: pan, mono: .constantPowerStereo)
        let out = PlaybackSignals.values(
            try PlaybackSignals.run(
                &stage, PlaybackSignals.samples([Float](repeating: 1, count: 4_800), channels: 1, sizes: [500])
            ) { i in
                if i == 2 { pan.value = 1 }
            })
        for channel in 0..<2 {
            let side = PlaybackSignals.channel(channel, of: out, channels: 2)
            #expect((zip(side, side.dropFirst()).map { abs($1 - $0) }.max() ?? 1) <= Float.pi / 4 * 2 / 960 + 1e-6)
        }
        #expect(stage.currentPan == 1)
    }
}
