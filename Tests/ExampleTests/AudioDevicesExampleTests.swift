import Foundation
import MediaPulse
import MediaTestSupport
import Testing

/// The `audio-devices` example end to end against a private daemon: its JSON against pactl's, the
/// server taken from `PULSE_SERVER`, `--watch` printing a module load as it happens and exiting 130
/// on SIGINT, or 1 when the daemon goes away.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioDevicesExampleTests {
    static let executable = TestPaths.executable("audio-devices")

    /// The devices of one `--json` array, as pactl shows them.
    static func devices(_ object: [String: Any], _ key: String) -> [PactlDevice] {
        (object[key] as? [[String: Any]] ?? []).compactMap { entry in
            guard let name = entry["name"] as? String, let description = entry["description"] as? String,
                let channels = entry["channels"] as? Int, let rate = entry["sampleRate"] as? Int,
                let isDefault = entry["isDefault"] as? Bool, let isMonitor = entry["isMonitor"] as? Bool,
                let index = entry["index"] as? Int
            else { return nil }
            return PactlDevice(
                AudioDevice(
                    name: name, description: description, kind: key == "inputs" ? .input : .output,
                    channelCount: channels,
                    sampleRate: rate, isDefault: isDefault, isMonitor: isMonitor, index: UInt32(index)))
        }
    }

    @Test func jsonAgreesWithPactl() throws {
        let daemon = try PulseDaemon()
        _ = try daemon.loadNullSink("mono", ["rate=22050", "channels=1"])
        try daemon.run("pactl", ["set-default-source", "mono.monitor"])
        // No --server: the example finds the daemon through PULSE_SERVER, as libpulse clients do.
        let result = try Self.run(daemon, ["--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(Set(object.keys) == ["inputs", "outputs"])
        let outputs = Self.devices(object, "outputs")
        let inputs = Self.devices(object, "inputs")
        #expect(outputs.count == 2 && inputs.count == 2)  // every entry had every key
        #expect(outputs == (try daemon.pactlDevices(.output)))
        #expect(inputs == (try daemon.pactlDevices(.input)))
        #expect(inputs.first { $0.isDefault }?.name == "mono.monitor")
    }

    @Test func textMarksTheDefaults() throws {
        let daemon = try PulseDaemon()
        let text = try Self.run(daemon, ["--server", daemon.server]).output
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "Outputs:")
        #expect(lines.contains { $0.hasPrefix("* test ") && $0.contains("2 ch") && $0.contains("48000 Hz") })
        #expect(lines.contains { $0.hasPrefix("* test.monitor ") && $0.hasSuffix("(monitor)") })
    }

    @Test func watchPrintsALoadThenExits130OnSIGINT() async throws {
        let daemon = try PulseDaemon()
        let folder = try TemporaryDirectory()
        let child = try ChildProcess(
            Self.executable, ["--watch", "--json"], environment: daemon.environment, outputBase: folder.file("watch"))
        defer { child.kill() }
        #expect(await Self.wait { child.result.stderr.contains("watching") })
        let module = try daemon.loadNullSink("extra")
        #expect(
            await Self.wait {
                Self.events(child).contains {
                    $0["event"] as? String == "added" && $0["name"] as? String == "extra.monitor"
                }
            })
        try daemon.run("pactl", ["unload-module", module])
        #expect(
            await Self.wait {
                Self.events(child).contains { $0["event"] as? String == "removed" && $0["name"] as? String == "extra" }
            })
        let events = Self.events(child)
        let added = try #require(events.first { $0["event"] as? String == "added" && $0["name"] as? String == "extra" })
        #expect(added["kind"] as? String == "output")
        #expect(added["channels"] as? Int == 2 && added["isMonitor"] as? Bool == false)
        #expect(
            events.contains {
                $0["event"] as? String == "added" && $0["kind"] as? String == "input"
                    && $0["isMonitor"] as? Bool == true
            })
        child.signal(SIGINT)
        #expect(await Self.wait { !child.isRunning })
        #expect(child.exitStatus == 130)
    }

    @Test func watchExits1WhenTheDaemonGoesAway() async throws {
        let daemon = try PulseDaemon()
        let folder = try TemporaryDirectory()  // not the daemon's folder: stop() removes that
        let child = try ChildProcess(
            Self.executable, ["--watch"], environment: daemon.environment, outputBase: folder.file("watch"))
        defer { child.kill() }
        #expect(await Self.wait { child.result.stderr.contains("watching") })
        daemon.stop()
        #expect(await Self.wait { !child.isRunning })
        #expect(child.exitStatus == 1)
        #expect(child.result.output.hasPrefix("connection lost: "))
        #expect(child.result.stderr.contains(daemon.server))
    }

    @Test func noServerExits1NamingIt() throws {
        let folder = try TemporaryDirectory()
        let server = "unix:" + folder.file("none")
        let result = try ExternalTool.run(Self.executable, ["--server", server])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("audio-devices: ") && result.stderr.contains(server))
    }

    /// Runs the example with the daemon's environment (`PULSE_SERVER`) and waits for it, at most 10 s;
    /// throws unless it exits 0. (`PulseDaemon.run` names its output files after the tool, which must
    /// not be a path.)
    static func run(_ daemon: PulseDaemon, _ arguments: [String]) throws -> ExternalTool.Result {
        let folder = try TemporaryDirectory()
        let child = try ChildProcess(
            executable, arguments, environment: daemon.environment, outputBase: folder.file("run"))
        guard child.wait(timeout: 10) else {
            child.kill()
            throw ExampleFailure(description: "audio-devices \(arguments) did not finish within 10 s")
        }
        let result = child.result
        guard result.status == 0 else {
            throw ExampleFailure(description: "audio-devices \(arguments) exited \(result.status): \(result.stderr)")
        }
        return result
    }

    /// The JSON objects the child printed so far, one a line.
    static func events(_ child: ChildProcess) -> [[String: Any]] {
        child.result.output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Waits at most `timeout` seconds until `condition` holds; whether it did.
    static func wait(_ timeout: Duration = .seconds(30), until condition: () -> Bool) async -> Bool {
        await pollAsync(timeout: timeout) { condition() }
    }
}

/// The example did not run as a test needs.
struct ExampleFailure: Error, CustomStringConvertible {
    var description: String
}
