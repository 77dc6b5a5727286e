internal import CPulseAudio
import MediaCore
import Synchronization

/// Owns one `pa_stream` (released with `pa_stream_unref`), made on a ``PulseConnection``, and what
/// both directions share: the state callback, the wait for the stream to become ready, the reason it
/// failed.
///
/// The stream's callbacks are set by its user (capture or playback) with a userdata object that the
/// user keeps alive for as long as this owner lives; ``disconnect()`` (also run by `deinit`) clears
/// every callback under the mainloop lock first, so no callback can run on a released object.
final class PulseStream: @unchecked Sendable {
    // Sendable: `raw` is an immutable pointer used only with the connection's mainloop lock held (or
    // inside its callbacks, which hold it); `state` and `error` are atomics the state callback writes,
    // and `deviceName` is behind a Mutex.
    let connection: PulseConnection
    let raw: OpaquePointer
    /// Posted on every state change, and by the user's own callbacks (data, requests).
    let wakeup = Wakeup()
    /// The last `pa_stream_state_t` (raw value), written by the state callback.
    private let state = Atomic<UInt32>(PA_STREAM_UNCONNECTED.rawValue)
    /// `pa_context_errno` when the stream failed.
    private let error = Atomic<Int32>(0)
    private let disconnected = Atomic<Bool>(false)
    /// The device the server connected the stream to (the default one's name too), once it was ready.
    private let deviceName = Mutex<String?>(nil)
    /// What the stream is, for messages: `recording from "test.monitor"`.
    let what: String

    init(connection: PulseConnection, name: String, spec: pa_sample_spec, map: pa_channel_map, what: String)
        throws(MediaError)
    {
        self.connection = connection
        self.what = what
        var spec = spec
        var map = map
        raw = try connection.withLock { context throws(MediaError) in
            try unwrap(
                pa_stream_new(context, name, &spec, &map), calling: "pa_stream_new", in: context, what,
                connection.failureCode(context))
        }
        connection.withLock { _ in
            pa_stream_set_state_callback(
                raw,
                { stream, userdata in
                    guard let stream, let userdata else { return }
                    Unmanaged<PulseStream>.fromOpaque(userdata).takeUnretainedValue().stateChanged(stream)
                }, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    deinit {
        disconnect()
        connection.withLock { _ in pa_stream_unref(raw) }
    }

    /// Runs on the mainloop thread: records the new state (and the error when it failed), wakes waiters.
    private func stateChanged(_ stream: OpaquePointer) {
        let now = pa_stream_get_state(stream)
        if now == PA_STREAM_FAILED, let context = pa_stream_get_context(stream) {
            error.store(pa_context_errno(context), ordering: .relaxed)
        }
        if now == PA_STREAM_READY, let name = pa_stream_get_device_name(stream) {
            let text = String(cString: name)
            deviceName.withLock { $0 = text }
        }
        state.store(now.rawValue, ordering: .releasing)
        wakeup.post()
    }

    /// Whether the stream was ready at some point: a failure after that is a loss, one before it a refusal.
    private var isReadyOnce: Bool { deviceName.withLock { $0 } != nil }

    /// Whether the stream is ready (`PA_STREAM_READY`).
    var isReady: Bool { state.load(ordering: .acquiring) == PA_STREAM_READY.rawValue }

    /// The error that ended the stream, or `nil` while it is connecting or ready. A stream killed by the
    /// server (its device removed, `PA_ERR_KILLED`) or cut off with its server is
    /// ``/MediaCore/MediaError/Code/deviceLost``, whose message says "device lost" and names the device
    /// the stream was on, however it was chosen (by name, or as the default), not libpulse's words.
    var failure: MediaError? {
        switch state.load(ordering: .acquiring) {
        case PA_STREAM_FAILED.rawValue:
            let code = error.load(ordering: .relaxed)
            let kind = Pulse.code(forFailure: code)
            guard kind == .deviceLost, isReadyOnce else {
                return MediaError.pulse(code, calling: "stream state PA_STREAM_FAILED", what, kind)
            }
            let device = deviceName.withLock { $0 }.map { "\"\($0)\"" } ?? "the device"
            let why =
                UInt32(bitPattern: code) == PA_ERR_CONNECTIONTERMINATED.rawValue
                ? "the PulseAudio server went away" : "\(device) went away"
            return MediaError(.deviceLost, "PulseAudio: \(what) ended: device lost: \(why) (error \(code))")
        case PA_STREAM_TERMINATED.rawValue:
            return MediaError(.deviceLost, "PulseAudio: \(what) ended: the stream was terminated")
        default:
            return nil
        }
    }

    /// Waits until the stream is ready, at most `timeout`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/unavailable`` when the device does not exist (`PA_ERR_NOENTITY`),
    ///   the stream's failure otherwise, or ``/MediaCore/MediaError/Code/io`` when it is not ready in time.
    func waitUntilReady(timeout: Duration) throws(MediaError) {
        let deadline = monotonicNanoseconds() + timeout.nanoseconds
        while true {
            wakeup.reset()
            if isReady { return }
            if var failure {
                if error.load(ordering: .relaxed) == CInt(PA_ERR_NOENTITY.rawValue) { failure.code = .unavailable }
                throw failure
            }
            let left = deadline - monotonicNanoseconds()
            guard left > 0 else {
                throw MediaError(.io, "PulseAudio: \(what) failed: the stream was not ready within \(timeout)")
            }
            wakeup.wait(nanoseconds: left)
        }
    }

    /// Whether ``disconnect()`` has run (the stream was finished, stopped or released).
    var isDisconnected: Bool { disconnected.load(ordering: .acquiring) }

    /// Clears every callback and disconnects; nothing more arrives. Idempotent, any thread.
    func disconnect() {
        guard !disconnected.exchange(true, ordering: .acquiringAndReleasing) else { return }
        connection.withLock { _ in
            pa_stream_set_state_callback(raw, nil, nil)
            pa_stream_set_read_callback(raw, nil, nil)
            pa_stream_set_write_callback(raw, nil, nil)
            pa_stream_set_underflow_callback(raw, nil, nil)
            pa_stream_set_overflow_callback(raw, nil, nil)
            pa_stream_set_latency_update_callback(raw, nil, nil)
            pa_stream_set_moved_callback(raw, nil, nil)
            pa_stream_set_suspended_callback(raw, nil, nil)
            let now = pa_stream_get_state(raw)
            if now == PA_STREAM_READY || now == PA_STREAM_CREATING { pa_stream_disconnect(raw) }
        }
        wakeup.post()
    }
}

/// What the server granted a stream once it is ready.
struct GrantedStream {
    /// The stream's PCM format (interleaved).
    var format: AudioFormat
    /// The device it runs on.
    var device: String
    /// `pa_buffer_attr.fragsize` (record) in bytes.
    var fragmentBytes: Int
    /// `pa_buffer_attr.tlength` (playback) in bytes.
    var targetBytes: Int
}

extension PulseStream {
    /// The granted sample spec, channel map, device and buffer (call with the lock held, once ready).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/unsupportedFormat`` when the server granted a sample format
    ///   MediaCore cannot hold (never, unless it was asked to take the device's).
    func granted(requested: pa_sample_spec) throws(MediaError) -> GrantedStream {
        let spec = pa_stream_get_sample_spec(raw)?.pointee ?? requested
        guard let type = PulseSampleSpec.sampleType(for: spec.format) else {
            let name = pa_sample_format_to_string(spec.format).map { String(cString: $0) } ?? "?"
            throw MediaError(
                .unsupportedFormat,
                "PulseAudio: \(what) was granted sample format \(name), which MediaPipeline does not hold")
        }
        let layout =
            pa_stream_get_channel_map(raw).map { PulseSampleSpec.layout(of: $0.pointee) }
            ?? .default(channelCount: Int(spec.channels))
        let attributes = pa_stream_get_buffer_attr(raw)?.pointee
        return GrantedStream(
            format: .pcm(PCMFormat(type), sampleRate: Int(spec.rate), channelLayout: layout),
            device: pa_stream_get_device_name(raw).map { String(cString: $0) } ?? "",
            fragmentBytes: Int(attributes?.fragsize ?? 0),
            targetBytes: Int(attributes?.tlength ?? 0))
    }
}
