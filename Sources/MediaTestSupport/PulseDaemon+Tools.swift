public import Foundation

extension PulseDaemon {
    /// Runs a PulseAudio tool (`pactl`, `paplay`, `parecord`) against this daemon and waits for it,
    /// at most `timeout` seconds (then kills it and throws).
    @discardableResult
    public func run(_ tool: String, _ arguments: [String], timeout: TimeInterval = 10) throws -> ExternalTool.Result {
        let child = try spawn(tool, arguments)
        guard child.wait(timeout: timeout) else {
            child.kill()
            throw ExternalTool.Failure(
                description: "\(tool) \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
        }
        let result = child.result
        guard result.status == 0 else {
            throw ExternalTool.Failure(
                description:
                    "\(tool) \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr.suffix(2000))"
            )
        }
        return result
    }

    /// Starts a PulseAudio tool (or any program, by name or path) against this daemon in the background.
    public func spawn(_ tool: String, _ arguments: [String]) throws -> ChildProcess {
        let name = tool.split(separator: "/").last.map(String.init) ?? tool
        return try ChildProcess(
            tool, arguments, environment: environment, outputBase: folder + "/\(name)-\(UUID().uuidString.prefix(8))")
    }

    /// How many record streams (source outputs) are connected now, from `pactl list short
    /// source-outputs`: a recorder such as `parecord` is recording once its stream appears.
    public func sourceOutputCount() throws -> Int {
        try run("pactl", ["list", "short", "source-outputs"]).output.split(separator: "\n").count
    }

    /// Unloads the null sink (`pactl unload-module module-null-sink`): its streams lose their device.
    public func unloadNullSink() throws {
        try run("pactl", ["unload-module", "module-null-sink"])
    }
}
