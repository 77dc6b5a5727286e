import Foundation
import MediaPipeline

/// The JSON forms (keys in README.md; a stable interface), one line each, keys sorted.
enum DeviceJSON {
    /// A device: `name`, `description`, `channels`, `sampleRate`, `isDefault`, `isMonitor`, `index`.
    struct Device: Encodable {
        var name: String
        var description: String
        var channels: Int
        var sampleRate: Int
        var isDefault: Bool
        var isMonitor: Bool
        var index: UInt32

        init(_ device: AudioDevice) {
            name = device.name
            description = device.description
            channels = device.channelCount
            sampleRate = device.sampleRate
            isDefault = device.isDefault
            isMonitor = device.isMonitor
            index = device.index
        }
    }

    /// A watch event: `event` and `kind`, plus the device's keys (added, changed, removed), `name`
    /// (default), or `error` (connectionLost).
    struct Event: Encodable {
        var event: String
        var kind: String?
        var device: Device?
        var name: String?
        var error: String?

        enum CodingKeys: String, CodingKey { case event, kind, name, error }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(event, forKey: .event)
            try container.encodeIfPresent(kind, forKey: .kind)
            try container.encodeIfPresent(name, forKey: .name)
            try container.encodeIfPresent(error, forKey: .error)
            try device?.encode(to: encoder)  // the device's keys, flat beside `event` and `kind`
        }
    }

    /// `{"inputs":[…],"outputs":[…]}`.
    static func list(inputs: [AudioDevice], outputs: [AudioDevice]) -> String {
        struct List: Encodable {
            var inputs: [Device]
            var outputs: [Device]
        }
        return encode(List(inputs: inputs.map(Device.init), outputs: outputs.map(Device.init)))
    }

    /// `{"event":"added","kind":"output","name":"extra",…}`.
    static func event(_ event: AudioDeviceEvent) -> String {
        switch event {
        case .added(let device): encode(Event(event: "added", kind: device.kind.rawValue, device: Device(device)))
        case .changed(let device): encode(Event(event: "changed", kind: device.kind.rawValue, device: Device(device)))
        case .removed(let device): encode(Event(event: "removed", kind: device.kind.rawValue, device: Device(device)))
        case .defaultChanged(let kind, let name):
            encode(Event(event: "defaultChanged", kind: kind.rawValue, name: name))
        case .connectionLost(let error): encode(Event(event: "connectionLost", error: error.description))
        }
    }

    private static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, numbers and booleans cannot fail; an empty object would show if it did.
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
