internal import CPulseAudio
import MediaCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The mainloop-thread side of an ``AudioCaptureSource``: the read callback's state. It stamps the
/// first chunk with its capture time, copies every chunk into the ``CaptureRing`` (or counts a hole),
/// records the stream's latency, and posts the stream's wakeup. No allocation, no lock beyond the
/// mainloop lock libpulse already holds around the callback.
final class CaptureProducer: @unchecked Sendable {
    // Sendable: `ring` is the SPSC ring (see there); the atomics are atomics; the other fields are
    // immutable. Everything else the producer mutates lives in the ring's producer-only fields.
    let ring: CaptureRing
    let wakeup: Wakeup
    /// The clock's anchor in nanoseconds of CLOCK_MONOTONIC.
    private let anchorNanoseconds: Int64
    private let sampleRate: Int64
    /// The latest latency `pa_stream_get_latency` reported (µs; slightly negative when the
    /// interpolation runs ahead), ``unmeasured`` before the first.
    let latestLatency = Atomic<Int64>(unmeasured)
    /// The largest latency reported (µs).
    let maximumLatency = Atomic<Int64>(unmeasured)
    /// No latency reported yet.
    static let unmeasured = Int64.min
    /// Set when `pa_stream_peek` failed: the stream is broken.
    let peekFailed = Atomic<Bool>(false)

    init(ring: CaptureRing, wakeup: Wakeup, clock: MediaClock, sampleRate: Int) {
        self.ring = ring
        self.wakeup = wakeup
        let anchor = clock.anchor.converted(to: 1_000_000_000)
        anchorNanoseconds = anchor.isNumeric ? anchor.value : 0
        self.sampleRate = Int64(sampleRate)
    }

    /// Installs the read callback on `stream` (call with the mainloop lock held, before connecting).
    func install(on stream: OpaquePointer) {
        pa_stream_set_read_callback(
            stream,
            { stream, _, userdata in
                guard let stream, let userdata else { return }
                Unmanaged<CaptureProducer>.fromOpaque(userdata).takeUnretainedValue().readable(stream)
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Runs on the mainloop thread whenever data is readable: takes every fragment waiting.
    private func readable(_ stream: OpaquePointer) {
        var latency: pa_usec_t = 0
        var negative: CInt = 0
        let measured = pa_stream_get_latency(stream, &latency, &negative) == 0
        let microseconds = negative != 0 ? -Int64(clamping: latency) : Int64(clamping: latency)
        if measured {
            latestLatency.store(microseconds, ordering: .relaxed)
            if microseconds > maximumLatency.load(ordering: .relaxed) {
                maximumLatency.store(microseconds, ordering: .relaxed)
            }
        }
        while pa_stream_readable_size(stream) > 0 {
            var data: UnsafeRawPointer?
            var bytes = 0
            guard pa_stream_peek(stream, &data, &bytes) == 0 else {
                peekFailed.store(true, ordering: .releasing)
                break
            }
            guard bytes > 0 else { break }  // empty queue (nothing to drop)
            let frames = bytes / ring.frameBytes
            if !ring.isStarted {
                // The oldest unread frame was captured `latency` ago, and at least a chunk's length ago: the
                // whole chunk was captured by now (the server's latency, updated only now and then, can
                // lag behind a chunk that has just arrived on a loaded machine, which stamped the first
                // sample's end 10 ms after it was handed over).
                let chunk = Int64(frames) * 1_000_000_000 / sampleRate
                let age = measured ? max(max(0, microseconds) * 1_000, chunk) : chunk
                ring.start(at: frame(atHostNanoseconds: nanosecondsNow() - age))
            }
            if let data {
                ring.write(data, frames: frames)
            } else {
                ring.drop(frames, asHole: true)
            }
            pa_stream_drop(stream)
        }
        wakeup.post()
    }

    /// The timeline position (frames at the stream's rate since the clock's anchor, rounded to the
    /// nearest) of host time `host` in nanoseconds.
    private func frame(atHostNanoseconds host: Int64) -> Int64 {
        let product = Int128(host - anchorNanoseconds) * Int128(sampleRate)
        let half: Int128 = product >= 0 ? 500_000_000 : -500_000_000
        return Int64(clamping: (product + half) / 1_000_000_000)
    }

    private func nanosecondsNow() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
