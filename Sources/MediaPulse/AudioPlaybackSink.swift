internal import CPulseAudio
public import MediaCore
import Synchronization

/// Plays PCM on a PulseAudio output as a ``/MediaCore/MediaSink``: `AVAudioPlayerNode` on an output, or
/// GStreamer's `pulsesink`.
///
/// ```swift
/// let speaker = try AudioPlaybackSink(sampleType: .f32, sampleRate: 48_000, channels: 2)
/// for pcm in decoded { try speaker.write(pcm) }   // blocks while the server's buffer is full
/// print(speaker.playedTime)                        // what has been heard so far
/// try speaker.finish()                             // plays out what is buffered
/// ```
///
/// **Accepts** interleaved PCM of exactly ``format`` (the sample type, rate and channel count it was
/// opened with). **Refuses** anything else with ``/MediaCore/MediaError/Code/formatMismatch`` (convert first:
/// `ConvertingPlaybackSink` in the MediaPipeline module puts an `AudioConverter` in front), `f64` at
/// opening with ``/MediaCore/MediaError/Code/unsupportedFormat``, and a device that does not exist with
/// ``/MediaCore/MediaError/Code/unavailable``. A device that goes away while playing (the stream is made with
/// `PA_STREAM_DONT_MOVE`) fails the next `write` or `finish` with ``/MediaCore/MediaError/Code/deviceLost``.
///
/// **Flow.** ``write(_:)`` copies into the server's buffer as far as it has room
/// (`pa_stream_writable_size`, `pa_stream_write`) and otherwise sleeps until the server asks for more
/// (the write callback posts a semaphore) or the stream ends: no busy wait, no wait longer than the
/// stream lives. ``pause()`` and ``resume()`` cork and uncork the stream (a write into a full, paused
/// stream waits until resumed or stopped); ``flush()`` drops what is buffered (a player's seek);
/// ``finish()`` drains: it returns once the server has played out the buffer. ``stop()`` (any thread)
/// ends everything at once: a blocked write returns, buffered audio is dropped.
///
/// **Position.** ``playedTime`` is what has been heard: the server's read position minus the sink's
/// latency (`pa_stream_get_time`, interpolated between timing updates), not what was written. It
/// stands still while paused and keeps counting only played audio across a flush.
///
/// **Threads.** Callbacks on the mainloop thread only post a semaphore or count an underrun; the
/// writing thread holds the mainloop lock for one `pa_stream_write` (a copy into shared memory), so
/// the mainloop thread never waits longer than that copy. Backed by `pa_stream_connect_playback`.
public final class AudioPlaybackSink: MediaSink, Sendable {
    /// The PCM format it takes.
    public let format: AudioFormat
    /// The device played to (the default resolved to its name).
    public let deviceName: String
    /// The latency asked for.
    public let requestedLatency: Duration
    /// The buffer the server granted (`pa_buffer_attr.tlength`), as time.
    public let bufferLatency: MediaTime
    /// `AudioPlaybackSink(<device>)`.
    public let name: String

    let connection: PulseConnection
    let stream: PulseStream
    private let events: PlaybackEvents
    let stopped = Atomic<Bool>(false)
    private let paused = Atomic<Bool>(false)
    /// How long control operations (cork, flush) may take.
    let operationTimeout: Duration

    /// Opens a playback stream and waits (at most `timeout`) until the server has set it up.
    ///
    /// - Parameters:
    ///   - connection: the server (default: a new connection to the default server).
    ///   - device: a sink name (`pactl list short sinks`), or `nil` for the default.
    ///   - sampleType: the sample type the stream takes (samples must have it).
    ///   - sampleRate: the stream's frames per second.
    ///   - channels: the channel count, in the default layout for the count.
    ///   - latency: the buffer to ask for (`tlength`); the server may grant more (``bufferLatency``).
    ///   - timeout: how long to wait for the server to set the stream up.
    public init(
        connection: PulseConnection? = nil, device: String? = nil,
        sampleType: PCMSampleType = .f32, sampleRate: Int = 48_000, channels: Int = 2,
        latency: Duration = .milliseconds(50), timeout: Duration = .seconds(5)
    ) throws(MediaError) {
        let pulse = try PulseConnection.given(connection)
        self.connection = pulse
        requestedLatency = latency
        operationTimeout = timeout
        let what = "playing to \(device.map { "\"\($0)\"" } ?? "the default output")"
        name = "AudioPlaybackSink(\(device ?? "default"))"
        var spec = try PulseSampleSpec.spec(sampleType, sampleRate: sampleRate, channels: channels)
        let stream = try PulseStream(
            connection: pulse, name: "MediaPipeline playback", spec: spec,
            map: PulseSampleSpec.waveMap(channels: spec.channels), what: what)
        self.stream = stream
        let events = PlaybackEvents(wakeup: stream.wakeup)
        self.events = events
        var attributes = pa_buffer_attr(
            maxlength: mpa_buffer_attr_default(),
            tlength: UInt32(clamping: pa_usec_to_bytes(UInt64(max(1, latency.nanoseconds / 1_000)), &spec)),
            prebuf: mpa_buffer_attr_default(), minreq: mpa_buffer_attr_default(), fragsize: mpa_buffer_attr_default())
        let flags = pa_stream_flags_t(
            rawValue: PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue
                | PA_STREAM_INTERPOLATE_TIMING.rawValue | PA_STREAM_DONT_MOVE.rawValue)
        let granted: GrantedStream
        do {
            try pulse.withLock { context throws(MediaError) in
                events.install(on: stream.raw)
                try check(
                    pa_stream_connect_playback(stream.raw, device, &attributes, flags, nil, nil),
                    calling: "pa_stream_connect_playback",
                    in: context, what)
            }
            try stream.waitUntilReady(timeout: timeout)
            granted = try pulse.withLock { _ throws(MediaError) in try stream.granted(requested: spec) }
        } catch {
            stream.disconnect()  // deinit does not run for a half-made object: no callback may outlive `events`
            throw error
        }
        format = granted.format
        deviceName = granted.device
        bufferLatency = MediaTime(
            value: Int64(granted.targetBytes / max(1, format.bytesPerFrame)), timescale: Int32(clamping: sampleRate))
    }

    deinit {
        stream.disconnect()
    }

    /// Queues `sample` for playback, waiting while the server's buffer is full.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/formatMismatch`` for anything but interleaved PCM of ``format``;
    ///   ``/MediaCore/MediaError/Code/deviceLost`` when the device or server went away;
    ///   ``/MediaCore/MediaError/Code/stageFinished`` after ``finish()``. Returns without writing (the rest)
    ///   once ``stop()`` has been called.
    public func write(_ sample: MediaSample) throws {
        guard case .audio(let input) = sample.format, input.codec == format.codec,
            input.sampleRate == format.sampleRate,
            input.channelCount == format.channelCount, sample.planeCount == 1
        else {
            throw MediaError.formatMismatch(stage: name, expected: "\(format) interleaved", actual: sample.format)
        }
        if stopped.load(ordering: .acquiring) { return }
        guard !stream.isDisconnected else { throw MediaError.stageFinished(name) }
        let frameBytes = format.bytesPerFrame
        try sample.withUnsafeBytes { bytes in
            let total = min(bytes.count, sample.frameCount * frameBytes)
            var offset = 0
            while offset < total, let base = bytes.baseAddress {
                if stopped.load(ordering: .acquiring) { return }
                stream.wakeup.reset()
                let written = try connection.withLock { context throws(MediaError) -> Int in
                    if let failure = stream.failure { throw failure }
                    let writable = pa_stream_writable_size(stream.raw)
                    guard writable != -1 else {  // (size_t) -1: the stream is not ready
                        throw MediaError.pulse(
                            pa_context_errno(context), calling: "pa_stream_writable_size", stream.what,
                            connection.failureCode(context))
                    }
                    let count = min(writable, total - offset) / frameBytes * frameBytes
                    guard count > 0 else { return 0 }
                    try check(
                        pa_stream_write(stream.raw, base + offset, count, nil, 0, PA_SEEK_RELATIVE),
                        calling: "pa_stream_write",
                        in: context, stream.what, connection.failureCode(context))
                    return count
                }
                offset += written
                if written == 0 { stream.wakeup.wait(nanoseconds: 250_000_000) }  // until the server wants more
            }
        }
    }

    /// Underruns so far: times the server found the buffer empty while playing.
    public var underruns: Int { events.underruns.load(ordering: .relaxed) }

    /// Whether the stream is paused (corked).
    public var isPaused: Bool { paused.load(ordering: .acquiring) }

    func setPaused(_ value: Bool) { paused.store(value, ordering: .releasing) }
}
