import Foundation
public import MediaPulse

/// What `pactl -f json list sinks` / `sources` (pulseaudio-utils 16) and `pactl get-default-*` say
/// about a daemon's devices, in the shape of ``AudioDevice``'s listed properties: the independent
/// judge of the device lists.
public struct PactlDevice: Hashable, Sendable {
    public var name: String
    public var description: String
    public var channels: Int
    public var sampleRate: Int
    public var isDefault: Bool
    public var isMonitor: Bool
    public var index: UInt32

    /// Ours, reduced to what pactl shows.
    public init(_ device: AudioDevice) {
        (name, description, channels, sampleRate) = (
            device.name, device.description, device.channelCount, device.sampleRate
        )
        (isDefault, isMonitor, index) = (device.isDefault, device.isMonitor, device.index)
    }

    /// One entry of `pactl -f json list`: `"sample_specification": "s16le 2ch 48000Hz"`; a monitor's
    /// `device.class` property is `monitor`.
    public init?(pactl entry: [String: Any], defaultName: String) {
        guard let name = entry["name"] as? String, let index = entry["index"] as? Int,
            let spec = entry["sample_specification"] as? String
        else { return nil }
        let parts = spec.split(separator: " ")
        guard parts.count == 3, let channels = Int(parts[1].dropLast(2)), let rate = Int(parts[2].dropLast(2)) else {
            return nil
        }
        let properties = entry["properties"] as? [String: Any] ?? [:]
        self.name = name
        description = entry["description"] as? String ?? ""
        self.channels = channels
        sampleRate = rate
        isDefault = name == defaultName
        isMonitor = properties["device.class"] as? String == "monitor"
        self.index = UInt32(index)
    }
}

extension PulseDaemon {
    /// pactl's outputs (`sinks`) or inputs (`sources`), in index order.
    public func pactlDevices(_ kind: AudioDevice.Kind) throws -> [PactlDevice] {
        let noun = kind == .output ? "sinks" : "sources"
        let defaultName = try run("pactl", ["get-default-\(kind == .output ? "sink" : "source")"]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let json = try run("pactl", ["-f", "json", "list", noun]).stdout
        let entries = try JSONSerialization.jsonObject(with: json) as? [[String: Any]] ?? []
        return entries.compactMap { PactlDevice(pactl: $0, defaultName: defaultName) }.sorted { $0.index < $1.index }
    }

    /// Loads a null sink named `name` and returns its module index (for `pactl unload-module`).
    public func loadNullSink(_ name: String, _ extra: [String] = []) throws -> String {
        try run("pactl", ["load-module", "module-null-sink", "sink_name=\(name)"] + extra).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
