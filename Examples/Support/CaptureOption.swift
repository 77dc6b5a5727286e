/// `--capture [DEVICE]`, a PulseAudio input with an optional name, for the examples that capture
/// (`live-streamer`, `camera-recorder`): ArgumentParser has no options with an optional value, so the
/// command line is rewritten before parsing.
public enum CaptureOption {
    /// The value `--capture` given without a name becomes: the server's default input.
    public static let defaultDevice = "@DEFAULT@"

    /// `arguments` with `--capture` given no device name (last, or before another option) followed by
    /// ``defaultDevice``.
    public static func normalizing(_ arguments: [String]) -> [String] {
        var result: [String] = []
        for (index, argument) in arguments.enumerated() {
            result.append(argument)
            let next = arguments.indices.contains(index + 1) ? arguments[index + 1] : nil
            if argument == "--capture", next.map({ $0.hasPrefix("-") }) ?? true { result.append(defaultDevice) }
        }
        return result
    }

    /// The device name to open: `nil` (the default) for ``defaultDevice``.
    public static func device(_ value: String) -> String? { value == defaultDevice ? nil : value }
}
