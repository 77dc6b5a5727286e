internal import CPulseAudio
import Synchronization

/// The mainloop-thread side of an ``AudioPlaybackSink``: the write callback (the server wants more)
/// posts the stream's wakeup, so a `write` blocked on a full buffer goes on; the underflow callback
/// counts an underrun. Neither allocates nor locks.
final class PlaybackEvents: Sendable {
    let wakeup: Wakeup
    /// Underruns the server reported (`pa_stream_set_underflow_callback`).
    let underruns = Atomic<Int>(0)

    init(wakeup: Wakeup) { self.wakeup = wakeup }

    /// Installs the callbacks on `stream` (call with the mainloop lock held, before connecting).
    func install(on stream: OpaquePointer) {
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        pa_stream_set_write_callback(
            stream,
            { _, _, userdata in
                guard let userdata else { return }
                Unmanaged<PlaybackEvents>.fromOpaque(userdata).takeUnretainedValue().wakeup.post()
            }, userdata)
        pa_stream_set_underflow_callback(
            stream,
            { _, userdata in
                guard let userdata else { return }
                let events = Unmanaged<PlaybackEvents>.fromOpaque(userdata).takeUnretainedValue()
                events.underruns.add(1, ordering: .relaxed)
                events.wakeup.post()
            }, userdata)
    }
}
