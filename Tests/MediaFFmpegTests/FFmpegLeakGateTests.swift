import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The leak gate (``MediaTestSupport/FFmpegLeakGate``) fails a test that leaves an FFmpeg object alive and
/// passes one that frees what it made. A child process runs, with the gate on, only the two tests enabled
/// there by an environment variable; one of them keeps an AAC encoder forever.
@Suite(.timeLimit(.minutes(10)), .serialized, .ffmpegLeakGate) struct FFmpegLeakGateTests {
    static let childVariable = "MEDIAPIPELINE_LEAK_GATE_CHILD"
    static var isChild: Bool { ProcessInfo.processInfo.environment[childVariable] == "1" }

    @Test(.enabled(if: !isChild)) func aLeakFailsTheGate() throws {
        let bundle = TestPaths.buildProductsDirectory + "/MediaPipelinePackageTests.xctest"
        // detect_leaks=0: in an AddressSanitizer build, the leak on purpose is not LeakSanitizer's to report.
        let run = try ExternalTool.run(
            "env",
            [
                "\(Self.childVariable)=1", "\(FFmpegLeakGate.variable)=1", "ASAN_OPTIONS=detect_leaks=0", bundle,
                "--testing-library", "swift-testing", "--filter", "FFmpegLeakGateTests"
            ])
        let output = run.output + run.stderr
        #expect(run.status != 0, "\(output.suffix(3000))")
        #expect(output.contains("Test keepsAnEncoderForever() failed"), "\(output.suffix(3000))")
        #expect(output.contains("Leak gate: FFmpegResources.liveCount was"), "\(output.suffix(3000))")
        #expect(output.contains("Test releasesItsEncoder() passed"), "\(output.suffix(3000))")
    }

    /// The encoder opens its codec context, frame, packet and FIFO at the first sample.
    static func openEncoder() throws -> AACEncoder {
        let encoder = try AACEncoder()
        #expect(try !PCM.run(encoder, PCM.sine(frames: 2048)).isEmpty)
        return encoder
    }

    @Test(.enabled(if: isChild)) func keepsAnEncoderForever() throws {
        _ = Unmanaged.passRetained(try Self.openEncoder())
    }

    @Test(.enabled(if: isChild)) func releasesItsEncoder() throws {
        let before = FFmpegResources.liveCount
        let encoder = try Self.openEncoder()
        #expect(FFmpegResources.liveCount > before)
        _ = encoder
    }
}
