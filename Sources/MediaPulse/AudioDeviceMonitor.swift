public import MediaCore

/// Watches a PulseAudio server's devices: the inputs and outputs there are now (``devices``), and an
/// ``events`` stream of every device that appears or disappears, every change of default, and the
/// connection being lost. The Linux counterpart of observing `AVAudioSession`'s route changes or
/// Core Audio's device list; `pactl subscribe`, with the devices' properties.
///
/// ```swift
/// let monitor = try AudioDeviceMonitor()                      // the default server
/// print(monitor.devices.map(\.name))                          // ["test", "test.monitor"]
/// for await event in monitor.events {
///     if case .added(let device) = event { print("new \(device.kind) \(device.name)") }
/// }                                                           // ends when the server goes away
/// ```
///
/// **Accepts** a server string as ``PulseConnection`` does, or an existing connection whose server to
/// watch. The monitor opens a connection of its own: libpulse has one subscription callback per
/// context, and a connection of its own lets any number of monitors run beside capture and playback.
/// **Refuses** with ``/MediaCore/MediaError/Code/unavailable`` a server that cannot be reached, and with
/// ``/MediaCore/MediaError/Code/io`` (``/MediaCore/MediaError/Code/deviceLost`` if the server went away meanwhile) one that
/// does not answer the first lists within the timeout.
///
/// **Events.** ``events`` is one stream for one consumer (an `AsyncStream`, unbounded: device events
/// are rare, and a stream nobody reads holds only what happened). For a device that appears, the
/// monitor asks the server for its properties and publishes ``AudioDeviceEvent/added(_:)`` when the
/// answer arrives; events are published in the order the server sent them. When the server exits or
/// drops the client, the stream's last element is ``AudioDeviceEvent/connectionLost(_:)`` (within
/// about 50 ms: the connection is checked on a timer), then it ends. ``stop()`` (or releasing the
/// monitor) ends it without that event. Iterating the stream does not keep the monitor alive: hold it
/// for as long as events are wanted.
///
/// **Threads.** The monitor is `Sendable`. Its work runs on its own connection's mainloop thread, so
/// it never delays the audio callbacks of capture and playback streams, and it never blocks that
/// thread: an event only queues a question to the server, and the answer is published when it comes.
/// ``devices``, ``failure`` and ``stop()`` take the mainloop lock for a moment.
public final class AudioDeviceMonitor: Sendable {
    /// The events, in the order the server reported them, ending after ``AudioDeviceEvent/connectionLost(_:)``
    /// or ``stop()``.
    public let events: AsyncStream<AudioDeviceEvent>
    /// The monitor's own connection.
    public let connection: PulseConnection
    private let watch: DeviceWatch

    /// Connects to `server` (default: libpulse's default, `$PULSE_SERVER` first) as `clientName`,
    /// subscribes to device and server events, and waits (at most `timeout` in all) for the first
    /// lists of devices.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/unavailable`` when the server cannot be reached;
    ///   ``/MediaCore/MediaError/Code/io`` or ``/MediaCore/MediaError/Code/deviceLost`` when it does not answer in time or
    ///   goes away meanwhile.
    public init(
        server: String? = nil, clientName: String = "MediaPipeline device monitor", timeout: Duration = .seconds(5)
    ) throws(MediaError) {
        let deadline = monotonicNanoseconds() + timeout.nanoseconds
        connection = try PulseConnection(server: server, clientName: clientName, timeout: timeout)
        let (stream, continuation) = AsyncStream.makeStream(of: AudioDeviceEvent.self, bufferingPolicy: .unbounded)
        events = stream
        watch = DeviceWatch(connection: connection, serverName: connection.server, continuation: continuation)
        try connection.withLock { context throws(MediaError) in try watch.start(on: context) }
        try waitUntilSeeded(deadline: deadline, timeout: timeout)
    }

    /// Watches the server `connection` is connected to, through a connection of the monitor's own
    /// (same server, same client name).
    ///
    /// - Throws: as ``init(server:clientName:timeout:)``.
    public convenience init(connection: PulseConnection, timeout: Duration = .seconds(5)) throws(MediaError) {
        try self.init(server: connection.server, clientName: connection.clientName, timeout: timeout)
    }

    deinit { stop() }

    /// The inputs and outputs the server has now, as the events so far left them: outputs first, each
    /// kind in the server's index order.
    public var devices: [AudioDevice] { connection.withLock { _ in watch.devices } }

    /// Why the monitor ended, once the connection was lost (the error ``AudioDeviceEvent/connectionLost(_:)``
    /// carried); `nil` while it runs and after ``stop()``.
    public var failure: MediaError? { connection.withLock { _ in watch.failure } }

    /// Unsubscribes and ends ``events``. Idempotent; any thread.
    public func stop() {
        connection.withLock { context in watch.stop(context) }
    }

    private func waitUntilSeeded(deadline: Int64, timeout: Duration) throws(MediaError) {
        while true {
            let (seeded, failure) = connection.withLock { _ in (watch.isSeeded, watch.failure) }
            if seeded { return }
            if let failure { throw failure }
            let left = deadline - monotonicNanoseconds()
            guard left > 0 else {
                stop()
                throw MediaError(
                    .io,
                    "PulseAudio: listing the devices of server \(connection.server) failed: no answer within \(timeout)"
                )
            }
            watch.settled.wait(nanoseconds: left)
        }
    }
}
