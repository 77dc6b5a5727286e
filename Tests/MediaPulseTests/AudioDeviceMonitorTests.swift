import Foundation
import MediaPulse
import MediaTestSupport
import Testing

/// Device events against a private daemon, caused with pactl: a module load adds a sink and its
/// monitor, a default change is reported, an unload removes both, and the daemon going away ends
/// the stream. Every wait is bounded.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioDeviceMonitorTests {
    @Test func startsWithTheServersDevices() throws {
        let daemon = try PulseDaemon()
        let monitor = try AudioDeviceMonitor(server: daemon.server)
        let pactl = try daemon.pactlDevices(.output) + daemon.pactlDevices(.input)
        #expect(monitor.devices.map(PactlDevice.init) == pactl)
        #expect(monitor.devices.map(\.name) == ["test", "test.monitor"])
        #expect(monitor.failure == nil)
    }

    @Test func loadDefaultUnload() async throws {
        let daemon = try PulseDaemon()
        let pulse = try PulseConnection(server: daemon.server)
        let monitor = try AudioDeviceMonitor(connection: pulse)
        let recorder = EventRecorder(monitor.events)

        let module = try daemon.loadNullSink("extra", ["rate=44100", "channels=1"])
        #expect(await recorder.wait { $0.added("extra") != nil && $0.added("extra.monitor") != nil })
        let sink = try #require(recorder.events.added("extra"))
        #expect(sink.kind == .output && !sink.isMonitor && !sink.isDefault)
        #expect(sink.channelCount == 1 && sink.sampleRate == 44_100)
        let source = try #require(recorder.events.added("extra.monitor"))
        #expect(source.kind == .input && source.isMonitor)
        // What the events announced is what pactl lists now.
        #expect(try daemon.pactlDevices(.output).contains(PactlDevice(sink)))
        #expect(try daemon.pactlDevices(.input).contains(PactlDevice(source)))
        #expect(monitor.devices.contains(sink) && monitor.devices.contains(source))

        // Volume and mute are not properties of AudioDevice: the server's change events for them
        // publish nothing (pactl 16 has no command that changes a null sink's listed properties).
        try daemon.run("pactl", ["set-sink-volume", "extra", "50%"])
        try daemon.run("pactl", ["set-sink-mute", "extra", "1"])

        try daemon.run("pactl", ["set-default-sink", "extra"])
        #expect(await recorder.wait { $0.contains(.defaultChanged(.output, name: "extra")) })
        #expect(monitor.devices.first { $0.name == "extra" }?.isDefault == true)
        #expect(monitor.devices.first { $0.name == "test" }?.isDefault == false)

        try daemon.run("pactl", ["unload-module", module])
        #expect(await recorder.wait { $0.removed("extra") != nil && $0.removed("extra.monitor") != nil })
        #expect(recorder.events.removed("extra")?.index == sink.index)
        // The server fell back to the remaining sink, and said so.
        #expect(
            await recorder.wait {
                $0.last(where: { if case .defaultChanged(.output, _) = $0 { true } else { false } })
                    == .defaultChanged(.output, name: "test")
            })
        // Order: added before the default change, before removed.
        let events = recorder.events
        let added = try #require(events.position { $0 == .added(sink) })
        let defaulted = try #require(events.position { $0 == .defaultChanged(.output, name: "extra") })
        let removed = try #require(
            events.position { if case .removed(let d) = $0 { d.name == "extra" } else { false } })
        #expect(added < defaulted && defaulted < removed)
        #expect(monitor.devices.map(\.name) == ["test", "test.monitor"])
        #expect(!events.contains { if case .changed = $0 { true } else { false } })
        #expect(!recorder.hasEnded)
    }

    @Test func daemonGoingAwayEndsTheStream() async throws {
        let daemon = try PulseDaemon()
        let monitor = try AudioDeviceMonitor(server: daemon.server)
        let recorder = EventRecorder(monitor.events)
        daemon.stop()
        #expect(await recorder.waitUntilEnded(), "the event stream did not end after the daemon went away")
        guard case .connectionLost(let error)? = recorder.events.last else {
            Issue.record("the last event is \(String(describing: recorder.events.last)), not connectionLost")
            return
        }
        #expect(error.code == .deviceLost)
        #expect(error.message.contains(daemon.server))
        #expect(monitor.failure == error)
    }

    @Test func stopEndsTheStreamWithoutAnEvent() async throws {
        let daemon = try PulseDaemon()
        let monitor = try AudioDeviceMonitor(server: daemon.server)
        let recorder = EventRecorder(monitor.events)
        monitor.stop()
        #expect(await recorder.waitUntilEnded())
        #expect(recorder.events.isEmpty)
        monitor.stop()  // idempotent
        // A stopped monitor reports nothing more.
        // A running monitor is the witness: once it has reported the new sink, the stopped one would
        // have too, were it still listening.
        let witness = try AudioDeviceMonitor(server: daemon.server)
        let seen = EventRecorder(witness.events)
        _ = try daemon.loadNullSink("late")
        #expect(await seen.wait { $0.added("late") != nil }, "the running monitor did not report the new sink")
        witness.stop()
        #expect(recorder.events.isEmpty)
    }

    @Test func noServerIsUnavailable() throws {
        let folder = try TemporaryDirectory()
        let server = "unix:" + folder.file("none")
        #expect {
            _ = try AudioDeviceMonitor(server: server, timeout: .seconds(2))
        } throws: { error in
            (error as? MediaError)?.code == .unavailable && (error as? MediaError)?.message.contains(server) == true
        }
    }
}
