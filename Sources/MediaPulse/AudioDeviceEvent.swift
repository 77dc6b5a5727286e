public import MediaCore

/// A change in a PulseAudio server's devices, as an ``AudioDeviceMonitor`` reports it: what
/// `AVAudioSession.routeChangeNotification` and Core Audio's device-list listeners report on Apple
/// platforms, `pactl subscribe` on Linux, but with the device's properties rather than an index.
///
/// ```swift
/// for await event in monitor.events {
///     switch event {
///     case .added(let device): print("new \(device.kind): \(device.name)")
///     case .removed(let device): print("gone: \(device.name)")
///     case .defaultChanged(let kind, let name): print("default \(kind) is now \(name)")
///     case .changed, .connectionLost: break
///     }
/// }
/// ```
public enum AudioDeviceEvent: Sendable, Hashable {
    /// A device appeared (a module loaded, a card plugged in). Its properties are what the server
    /// answered when asked right after the event.
    case added(AudioDevice)
    /// A device went away, as it was last reported (``AudioDevice/name``, ``AudioDevice/kind`` and
    /// ``AudioDevice/index`` say which). Capture and playback streams on it end with
    /// ``/MediaCore/MediaError/Code/deviceLost``.
    case removed(AudioDevice)
    /// One of a device's listed properties changed (its description, sample spec, channel map). Volume,
    /// mute and running-state changes are not reported: they are not properties of ``AudioDevice``. A
    /// change of default is reported as ``defaultChanged(_:name:)`` alone.
    case changed(AudioDevice)
    /// The server's default device of `kind` is now the one named `name` (`""` when there is none).
    case defaultChanged(AudioDevice.Kind, name: String)
    /// The connection to the server was lost (the server exited or dropped the client): the last
    /// event; the stream ends after it. The error's code is ``/MediaCore/MediaError/Code/deviceLost`` and its
    /// message names the server and libpulse's reason.
    case connectionLost(MediaError)
}
