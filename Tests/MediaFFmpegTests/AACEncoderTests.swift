import Foundation
import MediaCore
import MediaFFmpeg
import MediaTestSupport
import Testing

@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct AACEncoderTests {
    /// priming + valid + remainder = packets × 1024, for lengths around the packet boundaries.
    @Test(arguments: [1, 1000, 1024, 1025, 2048, 48_000, 48_037])
    func trimsAccountForEveryFrame(frames: Int) throws {
        let encoder = try AACEncoder(bitRate: 128_000)
        let packets = try PCM.run(encoder, PCM.sine(frames: frames, chunk: 777))
        let expectedPackets = (frames + 1024 + 1023) / 1024
        #expect(packets.count == expectedPackets)
        #expect(encoder.primingFrames == 1024)
        let priming = packets.reduce(0) { $0 + $1.trimAtStart }
        let remainder = packets.reduce(0) { $0 + $1.trimAtEnd }
        let valid = packets.reduce(0) { $0 + $1.validFrameCount }
        #expect(priming == 1024)
        #expect(valid == frames)
        #expect(priming + valid + remainder == packets.count * 1024)
        #expect(packets.first?.trimAtStart == 1024)
        #expect(packets.last?.trimAtEnd == packets.count * 1024 - 1024 - frames)
    }

    @Test func packetTimingIsInTheInputTimeline() throws {
        let packets = try PCM.run(try AACEncoder(), PCM.sine(frames: 10_000))
        for (k, packet) in packets.enumerated() {
            #expect(packet.timing.presentationTime == MediaTime(value: Int64(k * 1024 - 1024), timescale: 48_000))
            #expect(packet.timing.decodeTime == packet.timing.presentationTime)
            #expect(packet.timing.duration == MediaTime(value: 1024, timescale: 48_000))
            #expect(packet.flags.contains(.keyframe))
            #expect(packet.frameCount == 1024)
        }
    }

    @Test func outputFormatCarriesTheAudioSpecificConfig() throws {
        let encoder = try AACEncoder(bitRate: 96_000)
        let packets = try PCM.run(encoder, PCM.sine(frames: 4800, sampleRate: 44_100, channels: 1))
        let format = try #require(packets.first?.format.audio)
        #expect(format.codec == .aac)
        #expect(format.sampleRate == 44_100)
        #expect(format.channelCount == 1)
        #expect(format.framesPerPacket == 1024)
        // AAC-LC (object type 2), index 4 (44100), channel configuration 1: 0x12 0x08.
        #expect(Array(format.magicCookie.prefix(2)) == [0x12, 0x08])
        #expect(encoder.outputFormat == format)
    }

    @Test func inputChunkingDoesNotChangeThePackets() throws {
        let whole = try PCM.run(try AACEncoder(), PCM.sine(frames: 20_000, chunk: 20_000))
        let tiny = try PCM.run(try AACEncoder(), PCM.sine(frames: 20_000, chunk: 1))
        #expect(whole.map(\.data) == tiny.map(\.data))
    }

    /// The same tone as s16 and as f32 (which differ by the s16 rounding, under 2⁻¹⁵) decodes, by
    /// ``AACDecoder``, to the same samples within the coding noise: the two decodes are less than 0.01
    /// apart (RMS; the tone's RMS is 0.35, and each decode is about 0.005 from it, since the quantiser's
    /// choices differ with the tiny input difference), and each is within 0.01 of the tone. A gain or
    /// channel error in either conversion would put them 0.1 or more apart.
    @Test func floatAndIntegerInputOfTheSameSignalEncodeAlike() throws {
        let s16 = try PCM.run(try AACEncoder(), PCM.sine(frames: 9000, type: .s16))
        let f32 = try PCM.run(try AACEncoder(), PCM.sine(frames: 9000, type: .f32))
        #expect(s16.count == f32.count)
        let fromS16 = try Self.decodedPlanes(s16)
        let fromF32 = try Self.decodedPlanes(f32)
        #expect(fromS16.map(\.count) == [9000, 9000] && fromF32.map(\.count) == [9000, 9000])
        guard fromS16.map(\.count) == fromF32.map(\.count) else { return }
        let tone = (0..<9000).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        func rms(_ a: [Float], _ b: [Float]) -> Double {
            let squares = zip(a, b).map { Double($0 - $1) * Double($0 - $1) }
            return (squares.reduce(0, +) / Double(max(1, squares.count))).squareRoot()
        }
        for channel in 0..<2 {
            let difference = rms(fromS16[channel], fromF32[channel])
            let errors = [fromS16[channel], fromF32[channel]].map { rms($0, tone) }
            #expect(difference < 0.01, "channel \(channel): s16 and f32 input decode \(difference) apart (RMS)")
            // Both are the tone (its RMS is 0.35), not the same wrong thing.
            #expect(
                errors.allSatisfy { $0 < 0.01 }, "channel \(channel): the decodes are \(errors) from the tone (RMS)")
        }
    }

    /// The planes of what ``AACDecoder`` decodes from `packets`, as floats.
    static func decodedPlanes(_ packets: [MediaSample]) throws -> [[Float]] {
        let decoded = try PCM.run(AACDecoder(), packets)
        return try (0..<2).map { plane in try decoded.flatMap { try $0.pcm(as: Float.self, plane: plane) } }
    }

    @Test func refusesWhatItCannotTake() throws {
        #expect(throws: MediaError.self) { try AACEncoder(bitRate: 0) }
        let odd = PCM.sine(frames: 100, sampleRate: 44_056)
        do {
            _ = try PCM.run(try AACEncoder(), odd)
            Issue.record("44056 Hz was accepted")
        } catch let error as MediaError {
            #expect(error.code == .unsupportedFormat)
            #expect(error.description.contains("44056"))
        }
        let packet = MediaSample(
            format: .audio(.aac(sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [0x11, 0x90])),
            data: [1, 2, 3], timing: .invalid, frameCount: 1024)
        #expect { try PCM.run(try AACEncoder(), [packet]) } throws: { ($0 as? MediaError)?.code == .formatMismatch }
    }

    @Test func malformedPCMIsAnErrorNotACrash() throws {
        let format = AudioFormat.pcm(.s16, sampleRate: 48_000, channels: 2)
        let short = MediaSample(format: .audio(format), data: [0, 0, 0, 0], timing: .invalid, frameCount: 1000)
        #expect { try PCM.run(try AACEncoder(), [short]) } throws: { ($0 as? MediaError)?.code == .invalidData }
    }

    /// The guard a hand-driver wraps the encoder in refuses calls after finish, naming the encoder.
    @Test func callsAfterFinishThrow() throws {
        let encoder = CheckedStage(try AACEncoder())
        try encoder.finish { _ in }
        #expect { try encoder.finish { _ in } } throws: {
            ($0 as? MediaError)?.code == .stageFinished && ($0 as? MediaError)?.stage == "AACEncoder"
        }
        #expect { try encoder.process(PCM.sine(frames: 10)[0]) { _ in } } throws: {
            ($0 as? MediaError)?.code == .stageFinished
        }
    }

    @Test func formatChangeMidStreamIsAMismatch() throws {
        let encoder = try AACEncoder()
        try encoder.process(PCM.sine(frames: 100, channels: 2)[0]) { _ in }
        #expect { try encoder.process(PCM.sine(frames: 100, channels: 1)[0]) { _ in } } throws: {
            ($0 as? MediaError)?.code == .formatMismatch
        }
    }
}
