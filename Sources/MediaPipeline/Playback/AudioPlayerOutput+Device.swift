public import MediaCore
import MediaPulse

extension AudioPlayerOutput {
    /// A PulseAudio output by name, or the default with `nil`; `server` is a libpulse server string
    /// (`nil`: `PULSE_SERVER` or the default). The player converts the file to the device's sample rate
    /// and channel count with ``/MediaFFmpeg/AudioConverter`` when they differ (not the server's
    /// resampler), and ``AudioPlayer/currentTime`` follows what has been heard (the server's timing).
    ///
    /// `latency` is the buffer asked of the server (`tlength`; the server may grant more). The default,
    /// the playback sink's 50 ms, answers a change of volume, pan or rate quickly; a larger one rides out
    /// a loaded machine's scheduling delays without an underrun's gap.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/unavailable`` when no server answers;
    ///   ``/MediaCore/MediaError/Code/io`` when there is no such output.
    public static func device(
        _ name: String?, server: String? = nil, latency: Duration = .milliseconds(50)
    ) throws(MediaError) -> AudioPlayerOutput {
        let connection = try PulseConnection(server: server, clientName: "MediaPipeline AudioPlayer")
        // The device's own rate and channels (a null sink at 48 kHz), not the server's default spec
        // (44.1 kHz unless configured): then the server has nothing to resample.
        let outputs = try connection.outputs()
        let device = name.map { wanted in outputs.first { $0.name == wanted } } ?? outputs.first { $0.isDefault }
        guard let device else {
            throw MediaError(
                .io,
                "no PulseAudio output \(name.map { "named \"\($0)\"" } ?? "is the default") on \(connection.server)")
        }
        return AudioPlayerOutput(sampleRate: device.sampleRate, channels: device.channelCount) { format in
            let sink = try AudioPlaybackSink(
                connection: connection, device: name, sampleType: .f32, sampleRate: format.sampleRate,
                channels: format.channelLayout.channelCount, latency: latency)
            return OpenedPlayerOutput(sink: sink, clock: DeviceClock(sink: sink))
        }
    }
}

/// A device's clock: the frames heard, from the server's timing, held still while paused.
///
/// Deviation: measured here (PulseAudio 16, a null sink), `pa_stream_get_time` of a stream corked in
/// its first ~2 s, while an idle null sink still renders in 2-s blocks and a writer waits for room,
/// kept advancing with the wall clock (corked later, it stands still). So the clock freezes at
/// ``pause()`` itself and, at ``resume()``, subtracts whatever the server's time moved meanwhile.
final class DeviceClock: PlaybackClock {
    let sink: AudioPlaybackSink
    private let state = Locked<(pausedAt: Int64?, offset: Int64)>((nil, 0))

    init(sink: AudioPlaybackSink) { self.sink = sink }

    private var serverFrames: Int64 {
        let time = sink.playedTime
        guard time.isNumeric, time.timescale > 0 else { return 0 }
        return time.converted(to: Int32(clamping: sink.format.sampleRate)).value
    }

    var playedFrames: Int64 {
        let server = serverFrames
        return state.withLock { s in s.pausedAt ?? (server - s.offset) }
    }

    // A failed cork or flush (the device gone) is not lost: the next write fails with the same error,
    // which ends playback with a decode-error event.
    func pause() {
        let now = playedFrames
        state.withLock { s in if s.pausedAt == nil { s.pausedAt = now } }
        try? sink.pause()
    }

    func resume() {
        try? sink.resume()
        let server = serverFrames
        state.withLock { s in
            guard let pausedAt = s.pausedAt else { return }
            s.offset = server - pausedAt
            s.pausedAt = nil
        }
    }

    func flush() { try? sink.flush() }

    var underruns: Int { sink.underruns }
}
