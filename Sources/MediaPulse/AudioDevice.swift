public import MediaCore

/// A sound device as a PulseAudio server offers it: an output (a sink: speakers, headphones, a null
/// sink) or an input (a source: a microphone, or the *monitor* of an output, which records what is
/// played into it). What `AVAudioSession`'s `availableInputs` and `currentRoute` describe on Apple
/// platforms; `pactl list sinks` / `pactl list sources` on Linux.
///
/// ```swift
/// let pulse = try PulseConnection()
/// for device in try pulse.outputs() {
///     print(device.name, device.channelCount, device.sampleRate, device.isDefault ? "(default)" : "")
/// }
/// // test 2 48000 (default)
/// ```
///
/// A value: a snapshot of what the server said when it was asked (``PulseConnection/inputs(timeout:)``,
/// ``PulseConnection/outputs(timeout:)``, an ``AudioDeviceEvent``). Two snapshots of the same device
/// compare equal while the properties listed here stay the same; volume, mute and running state are
/// not part of it. The ``name`` is the stable key that capture and playback take; the ``index`` is
/// the server's number for it, reused after a device goes away.
public struct AudioDevice: Sendable, Hashable {
    /// Whether a device records (an input, PulseAudio's *source*) or plays (an output, a *sink*).
    public enum Kind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// A source: a microphone, a line input, or the monitor of an output.
        case input
        /// A sink: speakers, headphones, a virtual (null) sink.
        case output

        /// `input` or `output`.
        public var description: String { rawValue }
    }

    /// The server's name for the device, the key capture and playback take: `test`, `test.monitor`,
    /// `alsa_output.pci-0000_00_1f.3.analog-stereo`.
    public var name: String
    /// The human-readable name: `Null Output`, `Monitor of Null Output`, `Built-in Audio Analog Stereo`.
    public var description: String
    /// Input or output.
    public var kind: Kind
    /// The channels of the device's own sample spec (streams with other counts are remixed by the server).
    public var channelCount: Int
    /// The sample rate of the device's own sample spec, in Hz (streams at other rates are resampled).
    public var sampleRate: Int
    /// The sample type of the device's own sample spec, or `nil` for one MediaCore has no type for
    /// (big-endian, A-law, µ-law, 24-in-32).
    public var sampleType: PCMSampleType?
    /// The speaker positions of the device's channel map (unspecified with the count when they are not
    /// WAV's speakers in WAV's order).
    public var channelLayout: ChannelLayout
    /// Whether it is the server's default of its kind (`pactl get-default-sink` / `get-default-source`).
    public var isDefault: Bool
    /// Whether it is the monitor of an output (`test.monitor`): an input that records what is played
    /// into that output. Always `false` for outputs.
    public var isMonitor: Bool
    /// The server's index of the device (`pactl list short sinks`'s first column), unique among live
    /// devices of the same kind.
    public var index: UInt32

    /// A device with every property given.
    public init(
        name: String, description: String, kind: Kind, channelCount: Int, sampleRate: Int,
        sampleType: PCMSampleType? = nil,
        channelLayout: ChannelLayout? = nil, isDefault: Bool = false, isMonitor: Bool = false, index: UInt32
    ) {
        self.name = name
        self.description = description
        self.kind = kind
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        self.sampleType = sampleType
        self.channelLayout = channelLayout ?? .unspecified(channelCount)
        self.isDefault = isDefault
        self.isMonitor = isMonitor
        self.index = index
    }
}
