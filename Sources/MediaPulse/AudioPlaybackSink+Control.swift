internal import CPulseAudio
public import MediaCore
import Synchronization

extension AudioPlaybackSink {
    /// Plays out what is buffered and closes the stream. A paused stream is resumed first; after
    /// ``stop()`` this does nothing.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/deviceLost`` when the device or server went away before the end,
    ///   ``/MediaCore/MediaError/Code/io`` when the drain does not complete within the buffered time plus the
    ///   timeout given at opening. Backed by `pa_stream_drain`.
    public func finish() throws {
        defer { stream.disconnect() }
        if stopped.load(ordering: .acquiring) { return }
        if isPaused { try resume() }
        let drainTime = Duration.nanoseconds(max(0, bufferLatency.converted(to: 1_000_000_000, rounding: .up).value))
        try control("draining", calling: "pa_stream_drain", timeout: drainTime + operationTimeout) {
            pa_stream_drain($0, nil, nil)
        }
    }

    /// Pauses playback where it is (corks the stream): ``playedTime`` stands still, a write into the
    /// full buffer waits. Backed by `pa_stream_cork`.
    public func pause() throws(MediaError) {
        try control("pausing", calling: "pa_stream_cork") { pa_stream_cork($0, 1, nil, nil) }
        setPaused(true)
    }

    /// Resumes playback after ``pause()`` (uncorks). Backed by `pa_stream_cork`.
    public func resume() throws(MediaError) {
        try control("resuming", calling: "pa_stream_cork") { pa_stream_cork($0, 0, nil, nil) }
        setPaused(false)
    }

    /// Drops everything buffered and not yet played, for a seek: what is written next plays next.
    /// Backed by `pa_stream_flush`.
    public func flush() throws(MediaError) {
        try control("flushing", calling: "pa_stream_flush") { pa_stream_flush($0, nil, nil) }
    }

    /// Ends playback at once, from any thread: buffered audio is dropped, a waiting ``write(_:)``
    /// returns, later writes and ``finish()`` do nothing. Idempotent.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        stream.disconnect()
    }

    /// What has been heard since the stream started: the server's read position minus the device's
    /// latency, interpolated between updates (`pa_stream_get_time`); zero before the first update.
    public var playedTime: MediaTime {
        connection.withLock { _ in
            var microseconds: pa_usec_t = 0
            guard pa_stream_get_time(stream.raw, &microseconds) == 0 else { return .zero }
            return MediaTime(value: Int64(clamping: microseconds), timescale: 1_000_000)
        }
    }

    /// The latency now: how long until a frame written now is heard (buffer plus device), from the
    /// server's timing information (`pa_stream_get_latency`); ``/MediaCore/MediaTime/invalid`` before the first.
    public var latency: MediaTime {
        connection.withLock { _ in
            var microseconds: pa_usec_t = 0
            var negative: CInt = 0
            guard pa_stream_get_latency(stream.raw, &microseconds, &negative) == 0 else { return .invalid }
            let value = Int64(clamping: microseconds)
            return MediaTime(value: negative != 0 ? -value : value, timescale: 1_000_000)
        }
    }

    /// Runs one stream operation and waits for it; a failure of the stream itself (the device gone)
    /// takes precedence over the operation's own error.
    private func control(
        _ what: String, calling function: StaticString, timeout: Duration? = nil,
        _ start: (OpaquePointer) -> OpaquePointer?
    ) throws(MediaError) {
        if let failure = stream.failure { throw failure }
        do {
            try connection.perform(
                "\(what) while \(stream.what)", calling: function, timeout: timeout ?? operationTimeout
            ) { _ in
                start(stream.raw)
            }
        } catch {
            throw stream.failure ?? error
        }
    }
}
