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
