internal import CPulseAudio
import MediaCore

/// One step of a ``DeviceWatch``: a question to the server (the defaults, a list, one device) or a
/// removal, answered in the order the events came. Lives in the watch's queue until it is applied;
/// its callbacks run on the mainloop thread, with the lock held, and write only to this object.
final class DeviceRequest {
    enum Action {
        /// The initial defaults (applied silently).
        case seedServer
        /// The initial list of one kind (applied silently).
        case seedList(AudioDevice.Kind)
        /// The defaults after a server change event.
        case server
        /// One device after a new or change event.
        case fetch(AudioDevice.Kind, UInt32)
        /// A device's removal: nothing to ask, it only waits its turn.
        case remove(AudioDevice.Kind, UInt32)
    }

    unowned let watch: DeviceWatch
    let action: Action
    /// The running `pa_operation`, unreferenced when the request leaves the queue.
    var operation: OpaquePointer?
    /// The devices the server answered with (their `isDefault` is set when they are applied).
    var devices: [AudioDevice] = []
    /// The server's default sink and source, for the server actions; `nil` when it did not answer.
    var defaults: (sink: String, source: String)?
    /// Whether the answer is complete (or there will be none).
    var isDone = false

    init(watch: DeviceWatch, action: Action) {
        self.watch = watch
        self.action = action
    }

    /// Asks the server (lock held). Without an operation (a removal, or a context going down) the
    /// request is done at once.
    func start(on context: OpaquePointer) {
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        switch action {
        case .seedServer, .server:
            operation = pa_context_get_server_info(context, serverAnswered, userdata)
        case .seedList(.output):
            operation = pa_context_get_sink_info_list(context, sinkAnswered, userdata)
        case .seedList(.input):
            operation = pa_context_get_source_info_list(context, sourceAnswered, userdata)
        case .fetch(.output, let index):
            operation = pa_context_get_sink_info_by_index(context, index, sinkAnswered, userdata)
        case .fetch(.input, let index):
            operation = pa_context_get_source_info_by_index(context, index, sourceAnswered, userdata)
        case .remove:
            operation = nil
        }
        if operation == nil { isDone = true }
    }

    /// Marks the answer complete and lets the watch apply what is ready.
    fileprivate func complete() {
        isDone = true
        watch.drain()
    }
}

// libpulse's result callbacks (C function pointers capture nothing: the request comes as userdata).
// An info callback is called once per device with `eol == 0`, then once with `eol > 0` at the end,
// or `eol < 0` when the request failed (for one device: it is already gone).

private func sinkAnswered(
    _: OpaquePointer?, _ info: UnsafePointer<pa_sink_info>?, _ eol: CInt, _ userdata: UnsafeMutableRawPointer?
) {
    answered(eol, userdata) { info.map { AudioDevice(sink: $0.pointee, defaultName: "") } }
}

private func sourceAnswered(
    _: OpaquePointer?, _ info: UnsafePointer<pa_source_info>?, _ eol: CInt, _ userdata: UnsafeMutableRawPointer?
) {
    answered(eol, userdata) { info.map { AudioDevice(source: $0.pointee, defaultName: "") } }
}

/// One call of an info callback for the request at `userdata`: a device (`device` makes it) while
/// `eol` is 0, else the end of the answer.
private func answered(_ eol: CInt, _ userdata: UnsafeMutableRawPointer?, device: () -> AudioDevice?) {
    guard let userdata else { return }
    let request = Unmanaged<DeviceRequest>.fromOpaque(userdata).takeUnretainedValue()
    if eol == 0 {
        if let made = device() { request.devices.append(made) }
    } else {
        request.complete()
    }
}

private func serverAnswered(
    _: OpaquePointer?, _ info: UnsafePointer<pa_server_info>?, _ userdata: UnsafeMutableRawPointer?
) {
    guard let userdata else { return }
    let request = Unmanaged<DeviceRequest>.fromOpaque(userdata).takeUnretainedValue()
    if let info {
        request.defaults = (
            info.pointee.default_sink_name.map { String(cString: $0) } ?? "",
            info.pointee.default_source_name.map { String(cString: $0) } ?? ""
        )
    }
    request.complete()
}
