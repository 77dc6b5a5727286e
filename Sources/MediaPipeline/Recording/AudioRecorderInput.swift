public import MediaCore

/// Where an ``AudioRecorder`` gets its audio: a capture device, or any ``/MediaCore/MediaSource`` (a
/// generated tone, a file paced in real time, another library's capture).
///
/// The source must give 32-bit float interleaved PCM (``/MediaCore/PCMFormat/f32``) at the settings'
/// sample rate and channel count; a device is opened so. Anything else ends the recording with
/// ``/MediaCore/MediaError/Code/formatMismatch``.
public struct AudioRecorderInput: Sendable {
    /// Makes the source when recording starts, on the recording's thread.
    let make: @Sendable (AudioRecorderSettings) throws -> any MediaSource
    /// Stops a source that may block (a device), from the thread that calls ``AudioRecorder/stop()``.
    let interrupt: @Sendable () -> Void
    /// The input's latency now (capture to hand-over), when it can say.
    let latency: @Sendable () -> MediaTime?

    /// A source made by `make` when recording starts. A source that blocks in `next()` must end on its
    /// own, at most a buffer after a stop (the recorder checks between samples).
    public static func source(_ make: @escaping @Sendable () throws -> any MediaSource) -> AudioRecorderInput {
        AudioRecorderInput(make: { _ in try make() }, interrupt: {}, latency: { nil })
    }

    /// An input from `make`, with a way to wake a source blocked in `next()`.
    init(
        make: @escaping @Sendable (AudioRecorderSettings) throws -> any MediaSource,
        interrupt: @escaping @Sendable () -> Void,
        latency: @escaping @Sendable () -> MediaTime? = { nil }
    ) {
        self.make = make
        self.interrupt = interrupt
        self.latency = latency
    }
}

/// What an ``AudioRecorder`` tells its observers: `AVAudioRecorderDelegate`'s messages.
public enum AudioRecorderEvent: Sendable, Hashable {
    /// The recording ended (``AudioRecorder/stop()``, the duration reached, or the input's end) and the
    /// file is finished; `successfully` is `false` when it ended on an error (also reported).
    case finished(successfully: Bool)
    /// The recording failed (`audioRecorderEncodeErrorDidOccur`), e.g. the device was lost.
    /// What was written before is a finished, playable file.
    case error(MediaError)
    /// Input was lost (the device's overruns) `count` times so far; the file's time stamps stay
    /// continuous and the lost audio is missing from it.
    case inputLost(count: Int)
}
