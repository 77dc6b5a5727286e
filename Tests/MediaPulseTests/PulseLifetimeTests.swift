import Foundation
import MediaPulse
import MediaTestSupport
import Testing

/// Releasing a capture, a playback and their connection leaves nothing behind on the server: their
/// streams and their client are gone (`pactl`), so every libpulse object was disconnected and freed.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct PulseLifetimeTests {
    @Test func releasingEverythingLeavesTheServerClean() throws {
        let daemon = try PulseDaemon()
        func clients() throws -> Int {
            try daemon.run("pactl", ["list", "short", "clients"]).output.split(separator: "\n").count
        }
        func sinkInputs() throws -> Int {
            try daemon.run("pactl", ["list", "short", "sink-inputs"]).output.split(separator: "\n").count
        }
        let baseline = try clients()  // pactl itself
        do {
            let pulse = try PulseConnection(server: daemon.server, clientName: "lifetime-test")
            let capture = try AudioCaptureSource(connection: pulse, device: daemon.monitorName)
            let playback = try AudioPlaybackSink(connection: pulse, device: daemon.sinkName)
            #expect(try clients() == baseline + 1)
            #expect(try daemon.sourceOutputCount() == 1)
            #expect(try sinkInputs() == 1)
            try playback.finish()
            #expect {
                try playback.write(
                    MediaSample(
                        format: .audio(playback.format), data: [UInt8](repeating: 0, count: 8),
                        timing: .audio(startFrame: 0, frameCount: 1, sampleRate: 48_000),
                        frameCount: 1))
            } throws: { ($0 as? MediaError)?.code == .stageFinished }
            #expect(try sinkInputs() == 0)  // finish closed the playback stream
            _ = capture
        }
        _ = try poll { try clients() <= baseline && daemon.sourceOutputCount() == 0 }
        #expect(try clients() == baseline)
        #expect(try daemon.sourceOutputCount() == 0)
    }
}
