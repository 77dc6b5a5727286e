public import MediaCore
import MediaPulse

extension AudioPlayerOutput {
    /// A PulseAudio output by name, or the default with `nil`; `server` is a libpulse server string
    /// (`nil`: `PULSE_SERVER` or the default). The player converts the file to the server's sample rate
    /// and channel count with ``MediaFFmpeg/AudioConverter`` when they differ (not the server's
    /// resampler), and ``AudioPlayer/currentTime`` follows what has been heard (the server's timing).
    ///
    /// - Throws: ``MediaCore/MediaError/Code/unavailable`` when no server answers.
    public static func device(_ name: String?, server: String? = nil) throws(MediaError) -> AudioPlayerOutput {
        let connection = try PulseConnection(server: server, clientName: "MediaPipeline AudioPlayer")
        let info = try connection.serverInfo()
        return AudioPlayerOutput(sampleRate: info.sampleRate, channels: info.channelCount) { format in
            let sink = try AudioPlaybackSink(
                connection: connection, device: name, sampleType: .f32, sampleRate: format.sampleRate,
                channels: format.channelLayout.channelCount)
            return OpenedPlayerOutput(sink: sink, clock: DeviceClock(sink: sink))
        }
    }
}

/// A device's clock: the frames heard, from the server's timing.
struct DeviceClock: PlaybackClock {
    let sink: AudioPlaybackSink

    var playedFrames: Int64 {
        let time = sink.playedTime
        guard time.isNumeric, time.timescale > 0 else { return 0 }
        return time.converted(to: Int32(clamping: sink.format.sampleRate)).value
    }

    func pause() { try? sink.pause() }
    func resume() { try? sink.resume() }
    func flush() { try? sink.flush() }
}
