import MediaPipeline
#if canImport(Glibc)
    import Glibc
#endif

/// Writes `text` and a newline to standard output at once (unbuffered: `--watch` lines reach a pipe
/// as they happen).
func printLine(_ text: String) {
    let line = text + "\n"
    _ = line.withCString { write(1, $0, strlen($0)) }
}

/// The text forms: a table per kind, one line per event.
enum DeviceText {
    /// `Outputs:` then `Inputs:`, one device a line: default marker, name, channels, rate, description.
    static func list(inputs: [AudioDevice], outputs: [AudioDevice]) -> String {
        let width = (inputs + outputs).map(\.name.count).max() ?? 0
        var lines = ["Outputs:"]
        lines += outputs.isEmpty ? ["  (none)"] : outputs.map { row($0, width: width) }
        lines.append("Inputs:")
        lines += inputs.isEmpty ? ["  (none)"] : inputs.map { row($0, width: width) }
        return lines.joined(separator: "\n")
    }

    /// `* test          2 ch  48000 Hz  Null Output`.
    private static func row(_ device: AudioDevice, width: Int) -> String {
        let name = device.name + String(repeating: " ", count: max(0, width - device.name.count))
        let channels = pad("\(device.channelCount)", 2)
        let rate = pad("\(device.sampleRate)", 6)
        return
            "\(device.isDefault ? "*" : " ") \(name)  \(channels) ch  \(rate) Hz  \(device.description)\(device.isMonitor ? " (monitor)" : "")"
    }

    /// One line: `added output extra: Null Output, 2 ch, 48000 Hz`, `removed input extra.monitor`,
    /// `default output extra`, `connection lost: …`.
    static func event(_ event: AudioDeviceEvent) -> String {
        switch event {
        case .added(let device): "added \(device.kind) \(device.name): \(details(device))"
        case .changed(let device): "changed \(device.kind) \(device.name): \(details(device))"
        case .removed(let device): "removed \(device.kind) \(device.name)"
        case .defaultChanged(let kind, let name): "default \(kind) \(name.isEmpty ? "(none)" : name)"
        case .connectionLost(let error): "connection lost: \(error)"
        }
    }

    private static func details(_ device: AudioDevice) -> String {
        "\(device.description), \(device.channelCount) ch, \(device.sampleRate) Hz\(device.isMonitor ? ", monitor" : "")"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
