import Foundation
import MediaPulse
import MediaTestSupport
import Testing

/// The device lists against a private daemon, judged by `pactl -f json list sinks/sources`.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioDeviceListTests {
    @Test func nullSinkAndItsMonitor() throws {
        let daemon = try PulseDaemon()
        let pulse = try PulseConnection(server: daemon.server)
        let outputs = try pulse.outputs()
        let inputs = try pulse.inputs()
        let test = try #require(outputs.first { $0.name == "test" })
        #expect(test.kind == .output)
        #expect(test.channelCount == 2)
        #expect(test.sampleRate == 48_000)
        #expect(test.channelLayout == .stereo)
        #expect(test.isDefault)
        #expect(!test.isMonitor)
        let monitor = try #require(inputs.first { $0.name == "test.monitor" })
        #expect(monitor.kind == .input)
        #expect(monitor.isMonitor)
        #expect(monitor.isDefault)
        #expect(monitor.channelCount == 2 && monitor.sampleRate == 48_000)
        #expect(try pulse.device(named: "test.monitor", kind: .input) == monitor)
        #expect(try pulse.device(named: "test.monitor", kind: .output) == nil)
    }

    /// A second sink of another shape and a changed default: every field agrees with pactl's.
    @Test func agreesWithPactl() throws {
        let daemon = try PulseDaemon()
        _ = try daemon.loadNullSink(
            "surround", ["rate=96000", "channels=6", "sink_properties=device.description=Surround"])
        try daemon.run("pactl", ["set-default-sink", "surround"])
        let pulse = try PulseConnection(server: daemon.server)
        let (inputs, outputs) = try pulse.devices()
        #expect(outputs.map(PactlDevice.init) == (try daemon.pactlDevices(.output)))
        #expect(inputs.map(PactlDevice.init) == (try daemon.pactlDevices(.input)))
        let surround = try #require(outputs.first { $0.name == "surround" })
        #expect(surround.channelCount == 6 && surround.sampleRate == 96_000 && surround.isDefault)
        #expect(surround.description == "Surround")
        #expect(outputs.filter(\.isDefault).count == 1)
    }

    @Test func lostConnectionIsDeviceLost() throws {
        let daemon = try PulseDaemon()
        let pulse = try PulseConnection(server: daemon.server)
        daemon.stop()
        #expect(poll { !pulse.isConnected }, "the connection did not notice the daemon going away")
        // The lost connection's error, not the 1 s timeout's (that would be .io, "no answer within").
        #expect {
            _ = try pulse.outputs(timeout: .seconds(1))
        } throws: { error in (error as? MediaError)?.code == .deviceLost }
    }
}
