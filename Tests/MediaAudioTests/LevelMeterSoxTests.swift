import Foundation
import MediaAudio
import MediaTestSupport
import Testing

/// The meter against `sox stats` on the same bytes: sox generates one second of audio as raw PCM, sox
/// measures it ("Pk lev dB", "RMS lev dB" per channel), and the meter, set to a window covering the
/// whole second and a peak that never falls, must read the same within 0.006 dB (sox rounds to two
/// decimals). Sines, white and pink noise and square waves, mono and stereo, in u8, s16, s24, s32 and
/// f32.
@Suite(.timeLimit(.minutes(5))) struct LevelMeterSoxTests {
    struct Case: Sendable, CustomStringConvertible {
        var type: PCMSampleType
        var sampleRate: Int
        var channels: Int
        /// What follows `synth 1` in sox's effects chain.
        var effects: [String]
        var description: String { "\(type) \(channels)ch \(effects.joined(separator: " "))" }
    }

    static let cases: [Case] = [
        Case(type: .s16, sampleRate: 48_000, channels: 1, effects: ["sine", "1000", "vol", "-1dB"]),
        Case(type: .f32, sampleRate: 44_100, channels: 1, effects: ["square", "100", "vol", "0.5"]),
        Case(type: .u8, sampleRate: 22_050, channels: 1, effects: ["sine", "300", "vol", "-6dB"]),
        Case(
            type: .s16, sampleRate: 48_000, channels: 2, effects: ["whitenoise", "pinknoise", "remix", "1v0.3", "2v0.6"]
        ),
        Case(type: .s24, sampleRate: 48_000, channels: 2, effects: ["sine", "1000", "square", "50", "vol", "-20dB"]),
        Case(
            type: .s32, sampleRate: 96_000, channels: 2,
            effects: ["sine", "440", "pinknoise", "remix", "1v0.01", "2v0.3"]),
        Case(
            type: .f32, sampleRate: 48_000, channels: 2,
            effects: ["pinknoise", "whitenoise", "remix", "1v0.05", "2v0.8"])
    ]

    /// sox's options for raw PCM of `type`.
    static func soxEncoding(_ type: PCMSampleType) -> [String] {
        switch type {
        case .u8: return ["-e", "unsigned", "-b", "8"]
        case .s16: return ["-e", "signed", "-b", "16"]
        case .s24: return ["-e", "signed", "-b", "24"]
        case .s32: return ["-e", "signed", "-b", "32"]
        case .f32: return ["-e", "floating-point", "-b", "32"]
        case .f64: return ["-e", "floating-point", "-b", "64"]
        }
    }

    /// The per-channel values of the `sox stats` line starting `label` (one column for mono; for more
    /// channels the first, "Overall", column is dropped).
    static func statsValues(_ stats: String, label: String, channels: Int) throws -> [Double] {
        let line = try #require(stats.split(separator: "\n").first { $0.hasPrefix(label) }, "no \(label) in \(stats)")
        let values = line.dropFirst(label.count).split(separator: " ").compactMap { Double($0) }
        return channels == 1 ? Array(values.prefix(1)) : Array(values.dropFirst())
    }

    @Test(arguments: cases)
    func readingsMatchSoxStats(_ test: Case) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("audio.raw")
        let format =
            ["-r", String(test.sampleRate), "-c", String(test.channels)] + Self.soxEncoding(test.type) + ["-t", "raw"]
        try ExternalTool.check("timeout", ["30", "sox", "-R", "-n"] + format + [path, "synth", "1"] + test.effects)
        let stats = try ExternalTool.check("timeout", ["30", "sox"] + format + [path, "-n", "stats"]).stderr
        let soxPeaks = try Self.statsValues(stats, label: "Pk lev dB", channels: test.channels)
        let soxRMS = try Self.statsValues(stats, label: "RMS lev dB", channels: test.channels)
        #expect(soxPeaks.count == test.channels && soxRMS.count == test.channels, "\(stats)")

        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let bytesPerFrame = test.type.bytesPerSample * test.channels
        #expect(bytes.count == test.sampleRate * bytesPerFrame)
        let audio = AudioFormat.pcm(PCMFormat(test.type), sampleRate: test.sampleRate, channels: test.channels)
        var samples: [MediaSample] = []
        var frame = 0
        while frame * bytesPerFrame < bytes.count {
            let count = min(4_096, bytes.count / bytesPerFrame - frame)
            let data = Array(bytes[(frame * bytesPerFrame)..<((frame + count) * bytesPerFrame)])
            samples.append(
                MediaSample(
                    format: .audio(audio), data: data,
                    timing: .audio(startFrame: Int64(frame), frameCount: count, sampleRate: test.sampleRate),
                    frameCount: count))
            frame += count
        }
        let wholeSecond = LevelMeter.Configuration(
            averagingWindow: .seconds(1), peakHold: .seconds(3600), peakDecayRate: 0)
        let meter = try TestSignal.metered(samples, configuration: wholeSecond, finish: true)
        #expect(meter.channelCount == test.channels)
        for channel in 0..<min(test.channels, soxPeaks.count, soxRMS.count) {
            let peak = Double(meter.peakPower(forChannel: channel))
            let average = Double(meter.averagePower(forChannel: channel))
            #expect(
                abs(peak - soxPeaks[channel]) <= 0.006,
                "\(test) channel \(channel): peak \(peak), sox \(soxPeaks[channel])")
            #expect(
                abs(average - soxRMS[channel]) <= 0.006,
                "\(test) channel \(channel): RMS \(average), sox \(soxRMS[channel])")
        }
    }
}
