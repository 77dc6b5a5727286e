internal import CPulseAudio
public import MediaCore

/// What a PulseAudio server says about itself: `pactl info`.
public struct PulseServerInfo: Sendable, Hashable {
    /// The server's name: `pulseaudio`, or `PulseAudio (on PipeWire 0.3.65)`.
    public var serverName: String
    /// The server's version, e.g. `16.1`.
    public var serverVersion: String
    /// The name of the default output (sink), or `""` when there is none.
    public var defaultSink: String
    /// The name of the default input (source), or `""` when there is none.
    public var defaultSource: String
    /// The server's default sample rate, in Hz.
    public var sampleRate: Int
    /// The server's default channel count.
    public var channelCount: Int
}

extension PulseConnection {
    /// Asks the server for its name, version, default devices and default format, waiting at most
    /// `timeout`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/deviceLost`` when the connection has gone down,
    ///   ``/MediaCore/MediaError/Code/io`` when the server does not answer. Backed by `pa_context_get_server_info`.
    public func serverInfo(timeout: Duration = .seconds(5)) throws(MediaError) -> PulseServerInfo {
        let answer = ServerInfoAnswer()
        try perform(
            "asking server \(server) for its information", calling: "pa_context_get_server_info", timeout: timeout
        ) { context in
            pa_context_get_server_info(
                context,
                { _, info, userdata in
                    guard let userdata, let info else { return }
                    let answer = Unmanaged<ServerInfoAnswer>.fromOpaque(userdata).takeUnretainedValue()
                    answer.info = PulseServerInfo(
                        serverName: info.pointee.server_name.map { String(cString: $0) } ?? "",
                        serverVersion: info.pointee.server_version.map { String(cString: $0) } ?? "",
                        defaultSink: info.pointee.default_sink_name.map { String(cString: $0) } ?? "",
                        defaultSource: info.pointee.default_source_name.map { String(cString: $0) } ?? "",
                        sampleRate: Int(info.pointee.sample_spec.rate),
                        channelCount: Int(info.pointee.sample_spec.channels))
                }, Unmanaged.passUnretained(answer).toOpaque())
        }
        guard let info = withLock({ _ in answer.info }) else {
            throw MediaError(
                .io, "PulseAudio: server \(server) answered pa_context_get_server_info without information")
        }
        return info
    }
}

/// Where the server-info callback leaves its answer; written on the mainloop thread and read after
/// the operation completed, both under the mainloop lock. Kept alive by `serverInfo` until then.
private final class ServerInfoAnswer {
    var info: PulseServerInfo?
}
