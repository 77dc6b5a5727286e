#if canImport(Glibc)
    import Glibc
#endif
import MediaCore

/// The source an ``AudioRecorder`` records from: the input (a capture device, or any source) in 32-bit
/// float interleaved PCM, with pauses cut out without a click, a duration limit and time stamps that
/// count the frames written.
///
/// - Pausing (``RecordingControl/setPaused(_:)``) fades the next buffer out over ``fadeFrames`` and
///   drops what follows; resuming fades the first buffer back in. The file has no gap (the frames on
///   either side of a pause are adjacent) and no step (both edges go to silence along a half cosine),
///   and its time stamps stay continuous: each sample starts where the previous one ended.
/// - A ``limit`` ends the source after exactly that many frames; a stop request ends it at the next
///   buffer. Either way it returns `nil`, so the graph drains the encoder and finishes the file.
/// - A buffer the input flagged ``/MediaCore/MediaSample/Flags/discontinuity`` (lost input) is counted
///   in the control (the recorder reports it); the file's time stamps stay continuous.
///
/// Accepts only `f32` interleaved PCM (the recorder puts a converter before it); other input throws
/// ``/MediaCore/MediaError/Code/formatMismatch``.
struct RecordingGate: MediaSource {
    /// The length of a fade, in frames (10 ms).
    let fadeFrames: Int
    /// The most frames to write, `nil` for no limit.
    let limit: Int64?
    let control: RecordingControl
    private var input: any MediaSource
    private var written: Int64 = 0
    private var isPaused = false
    private var ended = false

    var name: String { "RecordingGate" }

    /// A gate over `input`, whose samples are at `sampleRate`.
    init(input: sending any MediaSource, sampleRate: Int, limit: Int64?, control: RecordingControl) {
        self.input = input
        self.limit = limit
        self.control = control
        fadeFrames = max(1, sampleRate / 100)
    }

    mutating func next() throws -> MediaSample? {
        while !ended {
            if control.isStopRequested || limit.map({ written >= $0 }) == true { break }
            guard var sample = try input.next() else { break }
            guard case .audio(let format) = sample.format, format.codec == .pcm(.f32) else {
                throw MediaError.formatMismatch(stage: name, expected: "f32 interleaved PCM", actual: sample.format)
            }
            if sample.flags.contains(.discontinuity) { control.addDiscontinuity() }
            let channels = format.channelLayout.channelCount
            var frames = sample.frameCount
            let wantsPause = control.isPauseRequested
            if isPaused {
                guard !wantsPause else {
                    control.addDropped(Int64(frames))
                    continue
                }
                isPaused = false
                Self.fade(&sample, channels: channels, frames: min(frames, fadeFrames), rising: true)
            } else if wantsPause {
                isPaused = true
                let kept = min(frames, fadeFrames)
                control.addDropped(Int64(frames - kept))
                frames = kept
                Self.fade(&sample, channels: channels, frames: kept, rising: false)
            }
            if let limit { frames = Int(min(Int64(frames), limit - written)) }
            guard frames > 0 else { continue }
            return emit(sample, format: format, frames: frames, channels: channels)
        }
        ended = true
        return nil
    }

    /// The first `frames` of `sample`, stamped at the frames written so far.
    private mutating func emit(_ sample: MediaSample, format: AudioFormat, frames: Int, channels: Int) -> MediaSample {
        let bytes = frames * channels * 4
        let data = sample.frameCount == frames ? sample.data : Array(sample.data.prefix(bytes))
        let out = MediaSample(
            format: .audio(format), data: data,
            timing: .audio(startFrame: written, frameCount: frames, sampleRate: format.sampleRate), frameCount: frames)
        written += Int64(frames)
        control.setFramesWritten(written)
        return out
    }

    /// Multiplies the first `frames` frames by a half-cosine ramp (0 → 1 when `rising`, 1 → 0 when not);
    /// a falling ramp also zeroes nothing after it (the caller keeps only `frames` frames).
    static func fade(_ sample: inout MediaSample, channels: Int, frames: Int, rising: Bool) {
        guard frames > 0, channels > 0 else { return }
        sample.withUnsafeMutableBytes { raw in
            let values = raw.bindMemory(to: Float.self)
            for frame in 0..<frames {
                // Rising: 0 at frame 0, reaching 1 just after the ramp; falling: the mirror, 0 at the last frame.
                let x = Float(frame + (rising ? 0 : 1)) / Float(frames)
                let gain = 0.5 - 0.5 * cos(Float.pi * (rising ? x : 1 - x))
                let base = frame * channels
                guard base + channels <= values.count else { return }
                for channel in 0..<channels { values[base + channel] *= gain }
            }
        }
    }
}
