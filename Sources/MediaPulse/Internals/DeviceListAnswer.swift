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
        case .output:
            return pa_context_get_sink_info_list(
                context,
                { _, info, eol, userdata in
                    guard let userdata else { return }
                    let answer = Unmanaged<DeviceListAnswer>.fromOpaque(userdata).takeUnretainedValue()
                    if eol < 0 { answer.failed = true }
                    guard eol == 0, let info else { return }
                    answer.devices.append(AudioDevice(sink: info.pointee, defaultName: answer.defaultName))
                }, userdata)
        case .input:
            return pa_context_get_source_info_list(
                context,
                { _, info, eol, userdata in
                    guard let userdata else { return }
                    let answer = Unmanaged<DeviceListAnswer>.fromOpaque(userdata).takeUnretainedValue()
                    if eol < 0 { answer.failed = true }
                    guard eol == 0, let info else { return }
                    answer.devices.append(AudioDevice(source: info.pointee, defaultName: answer.defaultName))
                }, userdata)
        }
    }
}
