import Foundation
import MediaTestSupport

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
    static func compare(_ recording: [Float], with reference: [Float], channels: Int = 2) -> (
        offset: Int, correlation: Double, levelDB: Double
    )? {
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
