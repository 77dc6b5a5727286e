import Foundation
import MediaTestSupport
import Testing

/// The examples that need a PulseAudio device, under valgrind's memcheck against a private daemon: no
/// definite leak, no invalid read or write. (Tagged real-time too: the recorder captures in real time, so
/// `make memcheck` runs it at normal priority.)
@Suite(.tags(.realTime, .valgrind), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioRecorderMemoryCheckTests {
    func memcheck(_ daemon: PulseDaemon, _ example: String, _ arguments: [String]) throws -> String {
        let child = try daemon.spawn("valgrind", MemoryCheckTests.valgrind(example) + arguments)
        guard child.wait(timeout: 120) else {
            child.kill()
            Issue.record("valgrind \(example) did not finish within 120 s")
            return ""
        }
        let result = child.result
        MemoryCheckTests.expectClean(result)
        return result.output
    }

    /// The null sink's monitor (a tone playing into the sink) → AudioCaptureSource → WAV.
    @Test func recordingFromADeviceLeaksNothing() throws {
        let daemon = try PulseDaemon()
        let dir = try TemporaryDirectory()
        let tone = try AudioFixture.twoTones(dir, seconds: 4)
        let player = try daemon.spawn("paplay", ["--device=\(daemon.sinkName)", tone])
        defer { player.kill() }
        let out = dir.file("monitor.wav")
        _ = try memcheck(daemon, "audio-recorder", ["--output", out, "--device", daemon.monitorName, "--duration", "1"])
        #expect(try ExternalTool.probeFirstStream(out)["codec_name"] as? String == "pcm_s16le")
    }

    /// The device list and its JSON, from the daemon.
    @Test func listingDevicesLeaksNothing() throws {
        let daemon = try PulseDaemon()
        let output = try memcheck(daemon, "audio-devices", ["--json"])
        #expect(output.contains(daemon.sinkName))
    }
}
