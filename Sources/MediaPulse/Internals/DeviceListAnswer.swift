internal import CPulseAudio
import MediaCore

/// Where a device-list callback leaves the devices it is given; written on the mainloop thread and
/// read after the operation completed, both under the mainloop lock. Kept alive by the caller until then.
final class DeviceListAnswer {
    /// The default device's name of the listed kind, for ``AudioDevice/isDefault``.
    let defaultName: String
    var devices: [AudioDevice] = []
    /// Whether libpulse ended the list with an error (`eol < 0`).
    var failed = false

    init(defaultName: String) { self.defaultName = defaultName }

    /// Starts `pa_context_get_sink_info_list` or `pa_context_get_source_info_list` filling this answer.
    func startListing(_ kind: AudioDevice.Kind, on context: OpaquePointer) -> OpaquePointer? {
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        switch kind {
        case .output: return pa_context_get_sink_info_list(context, sinkListed, userdata)
        case .input: return pa_context_get_source_info_list(context, sourceListed, userdata)
        }
    }

    /// One call of a list callback: a device (`device` makes it, given the default's name), the end of
    /// the list (`eol` 1), or a failure (`eol` < 0), for the answer at `userdata`.
    fileprivate static func receive(
        _ eol: Int32, _ userdata: UnsafeMutableRawPointer?, device: (String) -> AudioDevice?
    ) {
        guard let userdata else { return }
        let answer = Unmanaged<DeviceListAnswer>.fromOpaque(userdata).takeUnretainedValue()
        if eol < 0 { answer.failed = true }
        guard eol == 0, let made = device(answer.defaultName) else { return }
        answer.devices.append(made)
    }
}

private func sinkListed(
    _: OpaquePointer?, _ info: UnsafePointer<pa_sink_info>?, _ eol: CInt, _ userdata: UnsafeMutableRawPointer?
) {
    DeviceListAnswer.receive(eol, userdata) { name in info.map { AudioDevice(sink: $0.pointee, defaultName: name) } }
}

private func sourceListed(
    _: OpaquePointer?, _ info: UnsafePointer<pa_source_info>?, _ eol: CInt, _ userdata: UnsafeMutableRawPointer?
) {
    DeviceListAnswer.receive(eol, userdata) { name in info.map { AudioDevice(source: $0.pointee, defaultName: name) } }
}
