internal import CPulseAudio
public import MediaCore
import Synchronization

/// Live audio from a PulseAudio input (a microphone, or any sink's `.monitor`) as a ``/MediaCore/MediaSource``:
/// `AVAudioEngine.inputNode` with a tap, or GStreamer's `pulsesrc`.
///
/// ```swift
/// let clock = MediaClock()
/// let mic = try AudioCaptureSource(device: nil, sampleType: .f32, sampleRate: 48_000, channels: 2,
///                                  latency: .milliseconds(20), clock: clock)
/// print(mic.format, mic.bufferLatency)         // what the server granted
/// while let pcm = try mic.next() { … }         // blocks until audio; nil after stop()
/// ```
///
/// **Accepts** a device (source) name or `nil` for the server's default; a sample type (`s16`, `s24`,
/// `s32`, `f32`, `u8`), rate and channel count, which the server converts to from the device's own
/// (``format`` reports what the server granted).
/// **Refuses** `f64` with ``/MediaCore/MediaError/Code/unsupportedFormat``, a spec libpulse rejects with
/// ``/MediaCore/MediaError/Code/invalidArgument``, a device that does not exist or a server that cannot be
/// reached with ``/MediaCore/MediaError/Code/unavailable``, and a stream not set up within the timeout with
/// ``/MediaCore/MediaError/Code/io``.
///
/// **Samples** are interleaved PCM, one per fragment the server delivers, stamped on `clock`: the
/// first frame with its capture time (the host time when it arrived, minus the stream's latency), and
/// every later sample exactly the previous one's frame count later, so timestamps advance by the
/// frame count. Audio that never arrives (a hole in the server's stream, or frames dropped because
/// the consumer fell more than `bufferDuration` behind) moves the timeline on by its length: the next
/// sample is flagged ``/MediaCore/MediaSample/Flags/discontinuity``, counted in ``statistics``, and reported to
/// `onDiscontinuity` (called on the thread in ``next()``).
///
/// **Ends** with `nil` after ``stop()`` (from any thread: a `next()` blocked waiting returns at once),
/// and with ``/MediaCore/MediaError/Code/deviceLost`` (after what was already captured) when the device goes away:
/// the stream is made with `PA_STREAM_DONT_MOVE`, so the server kills it rather than moving it to
/// another device. ``next()`` never waits longer than the stream lives.
///
/// **Threads.** The read callback runs on the connection's mainloop thread and copies into a
/// preallocated ring (`CaptureRing`: no allocation, no lock); ``next()`` takes from the ring on the
/// caller's thread, one caller at a time (a mutex no callback takes). Backed by
/// `pa_stream_connect_record` with `PA_STREAM_ADJUST_LATENCY`.
public final class AudioCaptureSource: MediaSource, Sendable {
    /// What the server granted: interleaved PCM at the stream's rate and channel map.
    public let format: AudioFormat
    /// The device recorded from (the default resolved to its name).
    public let deviceName: String
    /// The latency asked for.
    public let requestedLatency: Duration
    /// The fragment the server granted (`pa_buffer_attr.fragsize`): how much audio each delivery holds
    /// at most, so the latency the buffer adds.
    public let bufferLatency: MediaTime
    /// The clock samples are stamped on.
    public let clock: MediaClock
    /// `AudioCaptureSource(<device>)`.
    public let name: String

    private let stream: PulseStream
    private let producer: CaptureProducer
    private let onDiscontinuity: (@Sendable (Discontinuity) -> Void)?
    private let stopped = Atomic<Bool>(false)
    /// Consumer-side counts, and the one-consumer-at-a-time guarantee the ring needs.
    private let consumer = Locked(())
    private let framesDelivered = Atomic<Int64>(0)
    private let discontinuities = Atomic<Int64>(0)

    /// Opens a record stream and waits (at most `timeout`) until the server has set it up.
    ///
    /// - Parameters:
    ///   - connection: the server (default: a new connection to the default server).
    ///   - device: a source name (`pactl list short sources`), or `nil` for the default.
    ///   - sampleType: the sample type to record in (the server converts).
    ///   - sampleRate: frames per second to record at (the server resamples).
    ///   - channels: the channel count, in the default layout for the count.
    ///   - latency: the fragment size to ask for; the server may grant more (see ``bufferLatency``).
    ///   - clock: the clock the samples' time stamps are read from.
    ///   - bufferDuration: how far the consumer may fall behind before audio is dropped.
    ///   - timeout: how long to wait for the server to set the stream up.
    ///   - onDiscontinuity: told about every gap, on the thread calling ``next()``.
    public init(
        connection: PulseConnection? = nil, device: String? = nil,
        sampleType: PCMSampleType = .f32, sampleRate: Int = 48_000, channels: Int = 2,
        latency: Duration = .milliseconds(20), clock: MediaClock = MediaClock(),
        bufferDuration: Duration = .seconds(4), timeout: Duration = .seconds(5),
        onDiscontinuity: (@Sendable (Discontinuity) -> Void)? = nil
    ) throws(MediaError) {
        let pulse = try PulseConnection.given(connection)
        self.clock = clock
        self.onDiscontinuity = onDiscontinuity
        requestedLatency = latency
        let what = "recording from \(device.map { "\"\($0)\"" } ?? "the default input")"
        name = "AudioCaptureSource(\(device ?? "default"))"
        var spec = try PulseSampleSpec.spec(sampleType, sampleRate: sampleRate, channels: channels)
        let stream = try PulseStream(
            connection: pulse, name: "MediaPipeline capture", spec: spec,
            map: PulseSampleSpec.waveMap(channels: spec.channels), what: what)
        self.stream = stream
        // The ring is sized from what was asked: the server converts to this spec, and a granted
        // fragment larger than asked simply spans several slots.
        let frameBytes = Int(pa_frame_size(&spec))
        let fragmentFrames = max(16, Int(Int64(sampleRate) * latency.nanoseconds / 1_000_000_000))
        let bufferFrames = Int(Int64(sampleRate) * max(bufferDuration, latency).nanoseconds / 1_000_000_000)
        let ring = CaptureRing(
            slotCount: bufferFrames / fragmentFrames + 1, slotFrames: fragmentFrames, frameBytes: frameBytes)
        let producer = CaptureProducer(ring: ring, wakeup: stream.wakeup, clock: clock, sampleRate: sampleRate)
        self.producer = producer
        var attributes = pa_buffer_attr(
            maxlength: mpa_buffer_attr_default(), tlength: mpa_buffer_attr_default(), prebuf: mpa_buffer_attr_default(),
            minreq: mpa_buffer_attr_default(), fragsize: UInt32(clamping: fragmentFrames * frameBytes))
        let flags = pa_stream_flags_t(
            rawValue: PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue
                | PA_STREAM_INTERPOLATE_TIMING.rawValue | PA_STREAM_DONT_MOVE.rawValue)
        let granted: GrantedStream
        do {
            try pulse.withLock { context throws(MediaError) in
                producer.install(on: stream.raw)
                try check(
                    pa_stream_connect_record(stream.raw, device, &attributes, flags),
                    calling: "pa_stream_connect_record", in: context, what)
            }
            try stream.waitUntilReady(timeout: timeout)
            granted = try pulse.withLock { _ throws(MediaError) in try stream.granted(requested: spec) }
        } catch {
            stream.disconnect()  // deinit does not run for a half-made object: no callback may outlive the producer
            throw error
        }
        format = granted.format
        deviceName = granted.device
        bufferLatency = MediaTime(
            value: Int64(granted.fragmentBytes / max(1, frameBytes)), timescale: Int32(clamping: sampleRate))
    }

    deinit {
        stream.disconnect()  // clears the callbacks under the mainloop lock: the producer is no longer used
    }

    /// The next captured PCM, waiting for it as long as the stream lives; `nil` after ``stop()``.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/deviceLost`` when the device or the server went away (after every
    ///   sample captured before), ``/MediaCore/MediaError/Code/io`` when the stream failed otherwise.
    public func next() throws -> MediaSample? {
        try consumer.withLock { _ throws(MediaError) -> MediaSample? in
            while true {
                stream.wakeup.reset()
                if stopped.load(ordering: .acquiring) { return nil }
                if let (slot, bytes) = producer.ring.read() {
                    return sample(slot, bytes)
                }
                if let failure = stream.failure { throw failure }
                if producer.peekFailed.load(ordering: .acquiring) {
                    throw MediaError(.io, "PulseAudio: \(stream.what) failed: pa_stream_peek refused to hand out data")
                }
                stream.wakeup.wait(nanoseconds: 250_000_000)  // woken by data, state changes and stop()
            }
        }
    }

    /// Ends the capture: a waiting or later ``next()`` returns `nil`. Any thread; idempotent.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        stream.disconnect()  // posts the wakeup
    }

    /// Counts so far: frames delivered, frames lost and in holes, discontinuities, latency.
    public var statistics: Statistics {
        let latest = producer.latestLatency.load(ordering: .relaxed)
        let maximum = producer.maximumLatency.load(ordering: .relaxed)
        return Statistics(
            framesDelivered: framesDelivered.load(ordering: .relaxed),
            lostFrames: producer.ring.lostFrames.load(ordering: .relaxed),
            holeFrames: producer.ring.holeFrames.load(ordering: .relaxed),
            discontinuities: discontinuities.load(ordering: .relaxed),
            latency: latest != CaptureProducer.unmeasured ? MediaTime(value: latest, timescale: 1_000_000) : .invalid,
            maximumLatency: maximum != CaptureProducer.unmeasured
                ? MediaTime(value: maximum, timescale: 1_000_000) : .invalid)
    }

    private func sample(_ slot: CaptureRing.Slot, _ bytes: [UInt8]) -> MediaSample {
        var flags: MediaSample.Flags = [.keyframe]
        let timing = SampleTiming.audio(
            startFrame: slot.startFrame, frameCount: slot.frames, sampleRate: format.sampleRate)
        if slot.lostFrames > 0 || slot.holeFrames > 0 {
            flags.insert(.discontinuity)
            discontinuities.add(1, ordering: .relaxed)
            onDiscontinuity?(
                Discontinuity(time: timing.presentationTime, lostFrames: slot.lostFrames, holeFrames: slot.holeFrames))
        }
        framesDelivered.add(Int64(slot.frames), ordering: .relaxed)
        return MediaSample(format: .audio(format), data: bytes, timing: timing, frameCount: slot.frames, flags: flags)
    }
}
