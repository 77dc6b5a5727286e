import MediaCore

extension AudioDeviceEvent: CustomStringConvertible {
    /// One line: `added output null (Null Output, 2 channels at 48000 Hz)`, `default input is now mic`,
    /// `connection lost: …`.
    public var description: String {
        switch self {
        case .added(let device): return "added \(Self.describe(device))"
        case .removed(let device): return "removed \(Self.describe(device))"
        case .changed(let device): return "changed \(Self.describe(device))"
        case .defaultChanged(let kind, let name): return "default \(kind) is now \(name)"
        case .connectionLost(let error): return "connection lost: \(error)"
        }
    }

    private static func describe(_ device: AudioDevice) -> String {
        "\(device.kind) \(device.name) (\(device.description), \(count: device.channelCount, "channel") at \(device.sampleRate) Hz)"
    }
}
