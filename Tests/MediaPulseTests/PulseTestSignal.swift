import Foundation
import MediaTestSupport
import Testing

/// The known signal the capture and playback tests send through the server, and how they compare
/// what came back with it.
enum PulseTestSignal {
    /// Writes a stereo 48 kHz s16 WAV made by sox (0.2 s of silence, then `seconds` of a 300→3000 Hz
    /// sweep left and a 500→1500 Hz sweep right at −6 dBFS: no two alignments look alike) and returns
    /// its path and its samples, interleaved float, as ffmpeg decodes them.
    ///
    /// The silent lead-in is there because of how PulseAudio starts a stream: the sink rewinds what it
    /// had rendered ahead to mix the new stream in at once, and a monitor that already delivered that
    /// span skips the re-rendered frames. So the first few milliseconds (up to the sink's latency) of a
    /// new playback never reach a running recording of the monitor, whoever plays and records.
    static func make(in folder: TemporaryDirectory, seconds: Double = 1.5) throws -> (path: String, samples: [Float]) {
        let path = folder.file("signal.wav")
        try ExternalTool.check(
            "sox",
            [
                "-n", "-r", "48000", "-c", "2", "-b", "16", "-e", "signed-integer", path,
                "synth", String(seconds), "sine", "300-3000", "sine", "500-1500", "gain", "-6", "pad", "0.2", "0"
            ])
        return (path, RawAudio.floats(try ExternalTool.decode(path)))
    }

    /// Finds `reference` (interleaved, `channels` channels) in `recording`: the frame offset where it
    /// starts, the normalised cross-correlation there over the whole reference, and the level of the
    /// recording there relative to the reference, in dB. Frames the recording lacks at either end
    /// (a recorder that started late, inside the reference's silent lead-in) count as silence.
    ///
    /// Gaps are cut first (``withoutGaps(_:channels:)``): on a loaded machine a stream that underruns
    /// stops until its prebuffer refills, so the monitor hears exact silence and then the rest, whole.
    /// Audio that is lost still fails: what follows the gap no longer lines up with the reference.
    static func compare(_ recording: [Float], with reference: [Float], channels: Int = 2) -> (
        offset: Int, correlation: Double, levelDB: Double
    )? {
        let recording = withoutGaps(recording, channels: channels)
        let refFrames = reference.count / channels
        guard let refOnset = onset(reference, channels), let recOnset = onset(recording, channels) else { return nil }
        let silence = [Float](repeating: 0, count: refFrames * channels)
        let padded = silence + recording + silence
        let coarse = recOnset - refOnset + refFrames
        var best = (offset: coarse, correlation: -2.0)
        for lag in (coarse - 200)...(coarse + 200) where lag >= 0 && lag + refFrames <= padded.count / channels {
            let r = correlation(
                padded, reference, offsetFrames: lag + refOnset, frames: min(4_800, refFrames - refOnset),
                referenceStart: refOnset, channels: channels)
            if r > best.correlation { best = (lag, r) }
        }
        guard best.correlation > -2 else { return nil }
        let full = correlation(
            padded, reference, offsetFrames: best.offset, frames: refFrames, referenceStart: 0, channels: channels)
        let segment = Array(padded[(best.offset * channels)..<((best.offset + refFrames) * channels)])
        let level = 20 * log10(RawAudio.rms(segment) / RawAudio.rms(reference))
        return (best.offset - refFrames, full, level)
    }

    /// `recording` without its runs of 10 ms (480 frames) or more of exact zeros after its onset: the
    /// silence a sink plays while a stream waits for its prebuffer after an underrun. (The reference has
    /// none after its lead-in: its sweeps never rest at zero.)
    static func withoutGaps(_ recording: [Float], channels: Int, minimum: Int = 480) -> [Float] {
        guard let start = onset(recording, channels) else { return recording }
        var kept = Array(recording[..<(start * channels)])
        var silent: [Float] = []
        var frame = start
        while (frame + 1) * channels <= recording.count {
            let values = recording[(frame * channels)..<((frame + 1) * channels)]
            if values.allSatisfy({ $0 == 0 }) {
                silent.append(contentsOf: values)
            } else {
                if silent.count / channels < minimum { kept += silent }
                silent.removeAll(keepingCapacity: true)
                kept.append(contentsOf: values)
            }
            frame += 1
        }
        return kept + silent
    }

    /// The first frame with a sample above −40 dBFS.
    private static func onset(_ samples: [Float], _ channels: Int) -> Int? {
        samples.firstIndex { abs($0) > 0.01 }.map { $0 / channels }
    }

    /// The normalised correlation of `frames` frames of `a` from `offsetFrames` with `b` from
    /// `referenceStart`.
    private static func correlation(
        _ a: [Float], _ b: [Float], offsetFrames: Int, frames: Int, referenceStart: Int, channels: Int
    ) -> Double {
        var ab = 0.0, aa = 0.0, bb = 0.0
        let start = offsetFrames * channels
        let refStart = referenceStart * channels
        for i in 0..<(frames * channels) {
            let x = Double(a[start + i]), y = Double(b[refStart + i])
            ab += x * y
            aa += x * x
            bb += y * y
        }
        return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
    }

    /// Runs `stop` after `seconds` on another thread: the bound on a test that waits for audio.
    static func watchdog(after seconds: Double, _ stop: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: stop)
    }
}

/// The comparison's gap rule on made-up recordings: an underrun's silence is forgiven, lost audio is not.
@Suite(.timeLimit(.minutes(1)), .ffmpegLeakGate) struct PulseTestSignalTests {
    /// 0.1 s of silence, then a 0.5 s sweep from 300 to 3000 Hz, stereo.
    static let reference: [Float] =
        [Float](repeating: 0, count: 2 * 4_800)
        + (0..<24_000).flatMap { frame -> [Float] in
            let t = Double(frame) / 48_000
            let value = Float(0.5 * sin(2 * Double.pi * (300 * t + 2_700 * t * t)))
            return [value, value * 0.5]
        }

    @Test func anUnderrunsSilenceIsCutAndLostAudioIsNot() throws {
        let reference = Self.reference
        let cut = 2 * (4_800 + 10_000)
        // An underrun: 0.1 s of silence in the middle, then the rest, whole.
        let gap = Array(reference[..<cut]) + [Float](repeating: 0, count: 2 * 4_800) + reference[cut...]
        let whole = try #require(PulseTestSignal.compare(gap, with: reference))
        #expect(whole.correlation > 0.999)
        // Lost audio: 0.1 s of the sweep missing, silence in its place.
        var lost = reference
        for index in cut..<(cut + 2 * 4_800) { lost[index] = 0 }
        let missing = try #require(PulseTestSignal.compare(lost, with: reference))
        #expect(missing.correlation < 0.95)
    }
}
