internal import CPulseAudio
import MediaCore

/// The mainloop side of an ``AudioDeviceMonitor``: the subscription, the devices known so far, the
/// queue of questions to the server, and the check that the connection is still up.
///
/// Everything here runs on the mainloop thread inside libpulse's callbacks (which hold the mainloop
/// lock) or inside `connection.withLock`. A callback never blocks: an event only queues a request
/// (`pa_context_get_*_info_by_index`, answered later on the same thread) and publishes what is ready
/// with `AsyncStream.Continuation.yield`, which takes the stream's own short lock and never waits for
/// the consumer. Requests are applied in the order of their events, so a removal that follows an
/// addition is never published before it.
///
/// libpulse tells a context's state only to its one state callback, which ``PulseConnection`` owns:
/// a timer on the mainloop (`pa_context_rttime_new`, every ``checkInterval`` µs) reads the state, and
/// ends the watch with ``AudioDeviceEvent/connectionLost(_:)`` once it is no longer ready.
final class DeviceWatch: @unchecked Sendable {
    // Sendable: every `var` below is read and written only with the connection's mainloop lock held,
    // in libpulse's callbacks (which run with it) or inside `connection.withLock`; the `let`s are
    // Sendable or immutable pointers used under that lock.
    let connection: PulseConnection
    private let continuation: AsyncStream<AudioDeviceEvent>.Continuation
    /// The server's name for messages (`connection.server` takes the lock, which callbacks hold already).
    private let serverName: String
    /// Posted once the first lists are in, and when the watch ends.
    let settled = Wakeup()
    /// How often the timer checks the connection, in µs.
    static let checkInterval: UInt64 = 50_000

    private var known: [Key: AudioDevice] = [:]
    private var defaults = (sink: "", source: "")
    private var queue: [DeviceRequest] = []
    private var seedsLeft = 3
    private var timer: OpaquePointer?
    /// Whether the first defaults and lists are applied.
    private(set) var isSeeded = false
    /// Why the watch ended, once the connection was lost.
    private(set) var failure: MediaError?
    private var isStopped = false

    private struct Key: Hashable {
        var kind: AudioDevice.Kind
        var index: UInt32
    }

    init(connection: PulseConnection, serverName: String, continuation: AsyncStream<AudioDeviceEvent>.Continuation) {
        self.connection = connection
        self.serverName = serverName
        self.continuation = continuation
    }

    /// Subscribes to sink, source and server events, asks for the defaults and both lists, and starts
    /// the connection check. Call once, with the lock held.
    func start(on context: OpaquePointer) throws(MediaError) {
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        pa_context_set_subscribe_callback(
            context,
            { _, type, index, userdata in
                guard let userdata else { return }
                Unmanaged<DeviceWatch>.fromOpaque(userdata).takeUnretainedValue().handle(type.rawValue, index: index)
            }, userdata)
        let mask =
            PA_SUBSCRIPTION_MASK_SINK.rawValue | PA_SUBSCRIPTION_MASK_SOURCE.rawValue
            | PA_SUBSCRIPTION_MASK_SERVER.rawValue
        let subscribed = try unwrap(
            pa_context_subscribe(context, pa_subscription_mask_t(mask), nil, nil), calling: "pa_context_subscribe",
            in: context,
            "subscribing to the device events of server \(serverName)", connection.failureCode(context))
        pa_operation_unref(subscribed)  // the subscription holds without it; a failure shows as a lost connection
        enqueue(.seedServer, on: context)
        enqueue(.seedList(.output), on: context)
        enqueue(.seedList(.input), on: context)
        timer = pa_context_rttime_new(
            context, pa_rtclock_now() + Self.checkInterval,
            { _, event, _, userdata in
                guard let userdata, let event else { return }
                Unmanaged<DeviceWatch>.fromOpaque(userdata).takeUnretainedValue().check(event)
            }, userdata)
    }

    /// The devices known now, outputs first, each kind in index order. Lock held.
    var devices: [AudioDevice] {
        known.values.sorted { ($0.kind == .output ? 0 : 1, $0.index) < ($1.kind == .output ? 0 : 1, $1.index) }
    }

    /// A subscription event: queue the question it raises.
    private func handle(_ type: UInt32, index: UInt32) {
        guard !isStopped else { return }
        let kind: AudioDevice.Kind
        switch type & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue {
        case PA_SUBSCRIPTION_EVENT_SINK.rawValue: kind = .output
        case PA_SUBSCRIPTION_EVENT_SOURCE.rawValue: kind = .input
        case PA_SUBSCRIPTION_EVENT_SERVER.rawValue:
            enqueue(.server, on: connection.context)
            return
        default: return
        }
        let removed = type & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue == PA_SUBSCRIPTION_EVENT_REMOVE.rawValue
        enqueue(removed ? .remove(kind, index) : .fetch(kind, index), on: connection.context)
    }

    private func enqueue(_ action: DeviceRequest.Action, on context: OpaquePointer) {
        let request = DeviceRequest(watch: self, action: action)
        queue.append(request)
        request.start(on: context)
        drain()
    }

    /// Applies the answered requests at the head of the queue, in order.
    func drain() {
        while !isStopped, let first = queue.first, first.isDone {
            queue.removeFirst()
            if let operation = first.operation { pa_operation_unref(operation) }
            apply(first)
        }
    }

    private func apply(_ request: DeviceRequest) {
        switch request.action {
        case .seedServer:
            if let answer = request.defaults { defaults = answer }
        case .seedList:
            for device in request.devices { known[Key(kind: device.kind, index: device.index)] = marked(device) }
        case .server:
            guard let answer = request.defaults else { return }
            let old = defaults
            defaults = answer
            for (key, device) in known { known[key] = marked(device) }
            if old.sink != answer.sink { continuation.yield(.defaultChanged(.output, name: answer.sink)) }
            if old.source != answer.source { continuation.yield(.defaultChanged(.input, name: answer.source)) }
        case .fetch:
            for device in request.devices.map(marked) {
                let key = Key(kind: device.kind, index: device.index)
                let before = known.updateValue(device, forKey: key)
                if before == nil {
                    continuation.yield(.added(device))
                } else if before != device {
                    continuation.yield(.changed(device))
                }
            }
        case .remove(let kind, let index):
            if let device = known.removeValue(forKey: Key(kind: kind, index: index)) {
                continuation.yield(.removed(device))
            }
        }
        if case .seedServer = request.action { seedsLeft -= 1 }
        if case .seedList = request.action { seedsLeft -= 1 }
        if seedsLeft == 0 && !isSeeded {
            isSeeded = true
            settled.post()
        }
    }

    /// `device` with `isDefault` from the current defaults.
    private func marked(_ device: AudioDevice) -> AudioDevice {
        var device = device
        device.isDefault =
            !device.name.isEmpty && device.name == (device.kind == .output ? defaults.sink : defaults.source)
        return device
    }

    /// The timer: re-arms while the context is ready, else ends the watch.
    private func check(_ event: OpaquePointer) {
        let context = connection.context
        guard !isStopped else { return }
        guard pa_context_get_state(context) != PA_CONTEXT_READY else {
            pa_context_rttime_restart(context, event, pa_rtclock_now() + Self.checkInterval)
            return
        }
        let error = MediaError.pulse(
            pa_context_errno(context), calling: "pa_context_get_state", "watching the devices of server \(serverName)",
            .deviceLost)
        failure = error
        continuation.yield(.connectionLost(error))
        stop(context)
    }

    /// Unsubscribes, cancels what is pending, frees the timer and ends the event stream. Lock held;
    /// idempotent.
    func stop(_ context: OpaquePointer) {
        guard !isStopped else { return }
        isStopped = true
        pa_context_set_subscribe_callback(context, nil, nil)
        for request in queue {
            guard let operation = request.operation else { continue }
            if pa_operation_get_state(operation) == PA_OPERATION_RUNNING { pa_operation_cancel(operation) }
            pa_operation_unref(operation)
        }
        queue.removeAll()
        if let timer, let api = pa_threaded_mainloop_get_api(connection.mainloop) {
            api.pointee.time_free(timer)
        }
        timer = nil
        continuation.finish()
        settled.post()
    }
}
