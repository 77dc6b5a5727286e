internal import CPulseAudio
import MediaCore

// AudioDevice from libpulse's introspection records. Called inside info callbacks, on the mainloop
// thread: the records' strings live only for the callback, so everything is copied out here.

extension AudioDevice {
    /// The output described by `info` (`pa_context_get_sink_info_*`); default when its name is `defaultName`.
    init(sink info: pa_sink_info, defaultName: String) {
        self.init(
            kind: .output, name: info.name, description: info.description, spec: info.sample_spec,
            map: info.channel_map, defaultName: defaultName, isMonitor: false, index: info.index)
    }

    /// The input described by `info` (`pa_context_get_source_info_*`); default when its name is
    /// `defaultName`; a monitor when it monitors a sink (`monitor_of_sink` is an index).
    init(source info: pa_source_info, defaultName: String) {
        self.init(
            kind: .input, name: info.name, description: info.description, spec: info.sample_spec,
            map: info.channel_map, defaultName: defaultName, isMonitor: info.monitor_of_sink != mpa_invalid_index(),
            index: info.index)
    }

    /// The fields sinks and sources share; the description falls back to the name.
    private init(
        kind: Kind, name cName: UnsafePointer<CChar>?, description: UnsafePointer<CChar>?, spec: pa_sample_spec,
        map: pa_channel_map, defaultName: String, isMonitor: Bool, index: UInt32
    ) {
        let name = cName.map { String(cString: $0) } ?? ""
        self.init(
            name: name,
            description: description.map { String(cString: $0) } ?? name,
            kind: kind,
            channelCount: Int(spec.channels),
            sampleRate: Int(spec.rate),
            sampleType: PulseSampleSpec.sampleType(for: spec.format),
            channelLayout: PulseSampleSpec.layout(of: map),
            isDefault: !name.isEmpty && name == defaultName,
            isMonitor: isMonitor,
            index: index)
    }
}
