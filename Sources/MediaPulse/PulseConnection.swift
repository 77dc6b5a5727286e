internal import CPulseAudio
public import MediaCore

/// A connection to a PulseAudio server (or PipeWire's PulseAudio server): the `pa_context` that
/// capture and playback streams, device lists and device events go through, with the thread that
/// serves it.
///
/// ```swift
/// let pulse = try PulseConnection()                                  // the default server
/// let other = try PulseConnection(server: "unix:/tmp/p/native", timeout: .seconds(2))
/// print(try pulse.serverInfo().defaultSource)                        // "alsa_input.pci-…"
/// ```
///
/// **Accepts** a server string in libpulse's syntax (`unix:/path/native`, `tcp:host:4713`, or `nil`
/// for the default: `$PULSE_SERVER`, then the user's runtime folder). The daemon is never spawned.
/// **Refuses** with ``/MediaCore/MediaError/Code/unavailable`` a server that cannot be reached, refuses the
/// client, or does not answer within the timeout; the message names the server and libpulse's reason
/// (`pa_strerror`). Operations on a connection that has failed since throw ``/MediaCore/MediaError/Code/deviceLost``.
///
/// **Threads.** A connection owns one `pa_threaded_mainloop`: a thread of libpulse's that runs every
/// callback (stream data, state changes, operation results). Every use of the context or a stream from
/// another thread happens between `pa_threaded_mainloop_lock` and `_unlock`, as libpulse requires;
/// callbacks run with that lock held, do only bounded work (a copy into a preallocated ring, a
/// counter, a `sem_post`) and never take another lock. Threads waiting for the server (a stream to
/// become ready, an operation to finish, audio to arrive) sleep on a semaphore the callback posts,
/// with a deadline, never holding the mainloop lock. The connection is `Sendable`: use it, and the
/// streams made from it, from any thread.
///
/// Releasing the last reference disconnects (streams hold their connection, so it goes last), stops
/// the thread and frees the mainloop and the context. Backed by `pa_context_connect`.
public final class PulseConnection: @unchecked Sendable {
    // Sendable: `mainloop` and `context` are immutable pointers set in init and freed in deinit (when
    // no other reference exists); everything done with them in between happens with the threaded
    // mainloop's lock held (`withLock`) or on the mainloop thread inside a callback, which libpulse
    // runs with that lock held. That lock is what makes libpulse's objects safe to share.
    let mainloop: OpaquePointer
    let context: OpaquePointer
    /// Posted by the context's state callback.
    private let stateChanged = Wakeup()

    /// The server string given to ``init(server:clientName:timeout:)``, `nil` for the default.
    public let requestedServer: String?
    /// The name this client shows in the server's client list (`pactl list clients`).
    public let clientName: String

    /// Connects to `server` (default: libpulse's default server) as `clientName`, waiting at most
    /// `timeout` for the server to accept.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/unavailable`` when the server cannot be reached or refuses, or
    ///   does not answer in time; ``/MediaCore/MediaError/Code/outOfMemory`` when libpulse cannot allocate.
    public init(server: String? = nil, clientName: String = "MediaPipeline", timeout: Duration = .seconds(5))
        throws(MediaError)
    {
        let described = server ?? "(default)"
        guard let loop = pa_threaded_mainloop_new() else {
            throw MediaError(.outOfMemory, "PulseAudio: cannot allocate a threaded mainloop (pa_threaded_mainloop_new)")
        }
        guard let api = pa_threaded_mainloop_get_api(loop), let made = pa_context_new(api, clientName) else {
            pa_threaded_mainloop_free(loop)
            throw MediaError(.outOfMemory, "PulseAudio: cannot allocate a context (pa_context_new)")
        }
        mainloop = loop
        context = made
        self.clientName = clientName
        requestedServer = server
        // From here on, a throw runs deinit, which frees both.
        pa_context_set_state_callback(
            made,
            { _, userdata in
                guard let userdata else { return }
                Unmanaged<Wakeup>.fromOpaque(userdata).takeUnretainedValue().post()
            }, Unmanaged.passUnretained(stateChanged).toOpaque())
        // Before the thread starts, nothing else can touch the context: no lock needed yet.
        try check(
            pa_context_connect(made, server, PA_CONTEXT_NOAUTOSPAWN, nil), calling: "pa_context_connect", in: made,
            "connecting to server \(described)", .unavailable)
        try check(
            pa_threaded_mainloop_start(loop), calling: "pa_threaded_mainloop_start", in: made,
            "starting the mainloop thread")
        try waitUntilReady(described: described, timeout: timeout)
    }

    deinit {
        pa_threaded_mainloop_lock(mainloop)
        pa_context_set_state_callback(context, nil, nil)
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_threaded_mainloop_unlock(mainloop)
        pa_threaded_mainloop_stop(mainloop)  // joins the thread; nothing runs after this
        pa_threaded_mainloop_free(mainloop)
    }

    /// The server connected to, as libpulse names it (`unix:/run/user/1000/pulse/native`).
    public var server: String {
        withLock { context in
            pa_context_get_server(context).map { String(cString: $0) } ?? requestedServer ?? "(default)"
        }
    }

    /// Whether the connection is up (it goes down when the server exits or drops this client).
    public var isConnected: Bool { withLock { pa_context_get_state($0) == PA_CONTEXT_READY } }

    private func waitUntilReady(described: String, timeout: Duration) throws(MediaError) {
        let deadline = monotonicNanoseconds() + timeout.nanoseconds
        while true {
            let (state, error) = withLock { (pa_context_get_state($0), pa_context_errno($0)) }
            switch state {
            case PA_CONTEXT_READY:
                return
            case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
                throw MediaError.pulse(
                    error, calling: "pa_context_connect", "connecting to server \(described)", .unavailable)
            default:
                let left = deadline - monotonicNanoseconds()
                guard left > 0 else {
                    throw MediaError(
                        .unavailable,
                        "PulseAudio: connecting to server \(described) failed: no answer within \(timeout) (pa_context_connect)"
                    )
                }
                stateChanged.wait(nanoseconds: left)
            }
        }
    }

    /// `connection`, or a new connection to the default server (what a stream given none uses).
    static func given(_ connection: PulseConnection?) throws(MediaError) -> PulseConnection {
        if let connection { return connection }
        return try PulseConnection()
    }

    /// Runs `body` with the context while holding the mainloop lock. Never call it from a callback
    /// (the mainloop thread already holds the lock, and libpulse forbids locking from it).
    func withLock<R, E: Error>(_ body: (OpaquePointer) throws(E) -> R) throws(E) -> R {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return try body(context)
    }
}
