internal import CPulseAudio
import MediaCore

// AudioDevice from libpulse's introspection records. Called inside info callbacks, on the mainloop
// thread: the records' strings live only for the callback, so everything is copied out here.

extension AudioDevice {
    /// The output described by `info` (`pa_context_get_sink_info_*`); default when its name is `defaultName`.
    init(sink info: pa_sink_info, defaultName: String) {
        let name = info.name.map { String(cString: $0) } ?? ""
        self.init(
            name: name,
            description: info.description.map { String(cString: $0) } ?? name,
            kind: .output,
            channelCount: Int(info.sample_spec.channels),
            sampleRate: Int(info.sample_spec.rate),
            sampleType: PulseSampleSpec.sampleType(for: info.sample_spec.format),
            channelLayout: PulseSampleSpec.layout(of: info.channel_map),
            isDefault: !name.isEmpty && name == defaultName,
            isMonitor: false,
            index: info.index)
    }

    /// The input described by `info` (`pa_context_get_source_info_*`); default when its name is
    /// `defaultName`; a monitor when it monitors a sink (`monitor_of_sink` is an index).
    init(source info: pa_source_info, defaultName: String) {
        let name = info.name.map { String(cString: $0) } ?? ""
        self.init(
            name: name,
            description: info.description.map { String(cString: $0) } ?? name,
            kind: .input,
            channelCount: Int(info.sample_spec.channels),
            sampleRate: Int(info.sample_spec.rate),
            sampleType: PulseSampleSpec.sampleType(for: info.sample_spec.format),
            channelLayout: PulseSampleSpec.layout(of: info.channel_map),
            isDefault: !name.isEmpty && name == defaultName,
            isMonitor: info.monitor_of_sink != mpa_invalid_index(),
            index: info.index)
    }
}

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
            return pa_context_get_sink_info_list(context, { _, info, eol, userdata in
                guard let userdata else { return }
                let answer = Unmanaged<DeviceListAnswer>.fromOpaque(userdata).takeUnretainedValue()
                if eol < 0 { answer.failed = true }
                guard eol == 0, let info else { return }
                answer.devices.append(AudioDevice(sink: info.pointee, defaultName: answer.defaultName))
            }, userdata)
        case .input:
            return pa_context_get_source_info_list(context, { _, info, eol, userdata in
                guard let userdata else { return }
                let answer = Unmanaged<DeviceListAnswer>.fromOpaque(userdata).takeUnretainedValue()
                if eol < 0 { answer.failed = true }
                guard eol == 0, let info else { return }
                answer.devices.append(AudioDevice(source: info.pointee, defaultName: answer.defaultName))
            }, userdata)
        }
    }
}
