import MediaCore
import MediaPulse

extension AudioRecorderInput {
    /// A PulseAudio input (a microphone, or a sink's `.monitor`) by name, or the default with `nil`,
    /// opened in 32-bit float at the settings' rate and channels (the server converts), in fragments of
    /// `latency` (50 ms by default: a file needs no lower latency, the meters update every 100 ms, and
    /// each fragment costs two thread wake-ups; 20 ms took 1.6× the CPU of `ffmpeg -f pulse`). `server` is a libpulse server string; `nil` uses `PULSE_SERVER` or the default.
    ///
    /// The device's overruns reach the recorder as ``AudioRecorderEvent/inputLost(count:)``; a device
    /// that goes away ends the recording with ``/MediaCore/MediaError/Code/deviceLost`` and a finished file.
    public static func device(_ name: String?, server: String? = nil, latency: Duration = .milliseconds(50))
        -> AudioRecorderInput
    {
        let current = Locked<AudioCaptureSource?>(nil)
        return AudioRecorderInput(
            make: { settings in
                let connection = try PulseConnection(server: server, clientName: "MediaPipeline AudioRecorder")
                let source = try AudioCaptureSource(
                    connection: connection, device: name, sampleType: .f32, sampleRate: settings.sampleRate,
                    channels: settings.channels, latency: latency)
                current.withLock { $0 = source }
                return source
            },
            interrupt: { current.withLock { $0 }?.stop() },
            latency: {
                guard let latency = current.withLock({ $0 })?.statistics.latency, latency.isNumeric else { return nil }
                return latency
            })
    }
}
