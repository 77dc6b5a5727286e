internal import CPulseAudio
public import MediaCore

extension PulseConnection {
    /// The server's inputs (sources: microphones and the monitors of outputs), in the server's index
    /// order, with the default marked. `pactl list sources`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/deviceLost`` when the connection has gone down,
    ///   ``/MediaCore/MediaError/Code/io`` when the server fails the request or does not answer within `timeout`
    ///   (for the two requests together: the server's defaults, then the list). Backed by
    ///   `pa_context_get_server_info` and `pa_context_get_source_info_list`.
    public func inputs(timeout: Duration = .seconds(5)) throws(MediaError) -> [AudioDevice] {
        let deadline = monotonicNanoseconds() + timeout.nanoseconds
        let info = try serverInfo(timeout: timeout)
        return try list(.input, defaultName: info.defaultSource, deadline: deadline, timeout: timeout)
    }

    /// The server's outputs (sinks), in the server's index order, with the default marked. `pactl list sinks`.
    ///
    /// - Throws: as ``inputs(timeout:)``. Backed by `pa_context_get_server_info` and
    ///   `pa_context_get_sink_info_list`.
    public func outputs(timeout: Duration = .seconds(5)) throws(MediaError) -> [AudioDevice] {
        let deadline = monotonicNanoseconds() + timeout.nanoseconds
        let info = try serverInfo(timeout: timeout)
        return try list(.output, defaultName: info.defaultSink, deadline: deadline, timeout: timeout)
    }

    /// Both lists, with the defaults from one answer of the server (so at most one device of each kind
    /// is marked default, even while the default changes).
    ///
    /// - Throws: as ``inputs(timeout:)``; `timeout` bounds the three requests together.
    public func devices(timeout: Duration = .seconds(5)) throws(MediaError) -> (
        inputs: [AudioDevice], outputs: [AudioDevice]
    ) {
        let deadline = monotonicNanoseconds() + timeout.nanoseconds
        let info = try serverInfo(timeout: timeout)
        let inputs = try list(.input, defaultName: info.defaultSource, deadline: deadline, timeout: timeout)
        let outputs = try list(.output, defaultName: info.defaultSink, deadline: deadline, timeout: timeout)
        return (inputs, outputs)
    }

    /// The device of `kind` named `name`, or `nil` when the server has none by that name.
    ///
    /// - Throws: as ``inputs(timeout:)``.
    public func device(named name: String, kind: AudioDevice.Kind, timeout: Duration = .seconds(5)) throws(MediaError)
        -> AudioDevice?
    {
        let all = kind == .input ? try inputs(timeout: timeout) : try outputs(timeout: timeout)
        return all.first { $0.name == name }
    }

    /// Lists the devices of `kind`, marking `defaultName`, waiting until `deadline` at most.
    private func list(_ kind: AudioDevice.Kind, defaultName: String, deadline: Int64, timeout: Duration)
        throws(MediaError) -> [AudioDevice]
    {
        let answer = DeviceListAnswer(defaultName: defaultName)
        let left = Duration.nanoseconds(max(0, deadline - monotonicNanoseconds()))
        let call: StaticString = kind == .input ? "pa_context_get_source_info_list" : "pa_context_get_sink_info_list"
        let what = "listing the \(kind)s of server \(server)"
        guard left > .zero else {
            throw MediaError(.io, "PulseAudio: \(what) failed: no answer within \(timeout) (\(call))")
        }
        try perform(what, calling: call, timeout: left) { context in answer.startListing(kind, on: context) }
        let (devices, failed, error, code) = withLock { context in
            (answer.devices, answer.failed, pa_context_errno(context), failureCode(context))
        }
        if failed { throw MediaError.pulse(error, calling: call, what, code) }
        return devices.sorted { $0.index < $1.index }
    }
}
