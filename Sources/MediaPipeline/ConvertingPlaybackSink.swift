public import MediaCore
import MediaFFmpeg
public import MediaPulse

/// Plays PCM of any format on a PulseAudio output: an ``/MediaFFmpeg/AudioConverter`` in front of an
/// ``/MediaPulse/AudioPlaybackSink``, converting sample type, rate and channel layout to what the
/// output was opened with. GStreamer's `audioconvert ! audioresample ! pulsesink`.
///
/// ```swift
/// let speaker = try AudioPlaybackSink(sampleType: .f32, sampleRate: 48_000, channels: 2)
/// let sink = try ConvertingPlaybackSink(speaker)
/// while let pcm = try file.read() { try sink.write(pcm) }    // 44.1 kHz s16 mono, say
/// try sink.finish()                                          // drains the converter, then the output
/// ```
///
/// **Accepts** linear PCM, interleaved or planar, of one format throughout (the converter's input is
/// fixed by the first sample). **Refuses** anything else with ``/MediaCore/MediaError/Code/formatMismatch``
/// (the converter's), and fails as the playback sink does (``/MediaCore/MediaError/Code/deviceLost``).
/// The output itself (pause, flush, position, underruns) is ``playback``.
public final class ConvertingPlaybackSink: MediaSink {
    /// The output played to.
    public let playback: AudioPlaybackSink
    /// The converter in the life-cycle guard a driver would put it in: after it throws, it is not
    /// called again, and its errors name it.
    private let converter: CheckedStage

    /// A sink that converts to `playback`'s format and plays there.
    public init(_ playback: AudioPlaybackSink) throws(MediaError) {
        self.playback = playback
        converter = CheckedStage(
            try AudioConverter(
                format: playback.format.pcm ?? .f32, sampleRate: playback.format.sampleRate,
                channelLayout: playback.format.channelLayout))
    }

    /// Converts `sample` and plays what comes out (blocking while the output's buffer is full).
    public func write(_ sample: MediaSample) throws {
        try converter.process(sample) { try playback.write($0) }
    }

    /// Drains the converter's delay into the output, then plays out and closes it.
    public func finish() throws {
        try converter.finish { try playback.write($0) }
        try playback.finish()
    }

    /// `ConvertingPlaybackSink(<device>)`.
    public var name: String { "ConvertingPlaybackSink(\(playback.deviceName))" }
}

@available(*, unavailable) extension ConvertingPlaybackSink: Sendable {}
