import Foundation
import MediaCore
import MediaFFmpeg
import MediaTestSupport
import Testing

@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct AACDecoderTests {
    /// Encode → decode returns exactly the frames that went in, whatever the length.
    @Test(arguments: [1, 1023, 1024, 4097, 48_000, 100_003])
    func roundTripKeepsTheFrameCount(frames: Int) throws {
        let packets = try PCM.run(try AACEncoder(), PCM.sine(frames: frames))
        let decoded = try PCM.run(AACDecoder(), packets)
        #expect(decoded.reduce(0) { $0 + $1.frameCount } == frames)
        let format = try #require(decoded.first?.format.audio)
        #expect(format.pcm == .f32Planar)
        #expect(format.sampleRate == 48_000)
        #expect(format.channelCount == 2)
    }

    /// In FFmpeg's native layout (float planar) the decoded samples borrow FFmpeg's frames, the first
    /// one trimmed as a sub-range of its frame, and keep their values after the decoder is gone while
    /// every sample is held.
    @Test func nativeLayoutBorrowsTheDecodedFrames() throws {
        let packets = try PCM.run(try AACEncoder(), PCM.sine(frames: 10_000, frequency: 440, type: .f32))
        let decoded = try PCM.run(AACDecoder(), packets)  // all held, the decoder released
        #expect(!decoded.isEmpty)
        #expect(decoded.allSatisfy { $0.borrowsMemory })
        let copies = decoded.map {
            MediaSample(format: $0.format, planes: $0.planes, timing: $0.timing, frameCount: $0.frameCount)
        }
        #expect(copies == decoded)  // equal by bytes, owned or borrowed
        #expect(!copies.contains { $0.borrowsMemory })
        let left = try decoded.flatMap { try $0.pcm(as: Float.self, plane: 0) }
        #expect(left.count == 10_000)
        #expect(left.contains { abs($0) > 0.1 })  // the tone, not silence or freed memory
    }

    /// With the priming trimmed, the decoded signal lines up with the input at lag 0.
    @Test func decodedAudioLinesUpWithTheInput() throws {
        let input = PCM.sine(frames: 48_000, frequency: 997, type: .f32)
        let packets = try PCM.run(try AACEncoder(bitRate: 192_000), input)
        let decoded = PCM.firstChannel(try PCM.run(AACDecoder(outputFormat: .f32), packets))
        let original = PCM.firstChannel(input)
        #expect(decoded.count == original.count)
        func correlation(_ lag: Int) -> Double {
            var sum = 0.0
            for i in 2000..<40_000 { sum += Double(original[i]) * Double(decoded[i + lag]) }
            return sum
        }
        let best = (-40...40).max { correlation($0) < correlation($1) }
        #expect(best == 0)
        var error = 0.0
        var power = 0.0
        for i in 2000..<40_000 {
            error += pow(Double(decoded[i] - original[i]), 2)
            power += pow(Double(original[i]), 2)
        }
        let snr = 10 * log10(power / error)
        #expect(snr > 20, "SNR \(snr) dB")
    }

    @Test func timingStartsAtTheFirstValidFrame() throws {
        let packets = try PCM.run(try AACEncoder(), PCM.sine(frames: 5000))
        let decoded = try PCM.run(AACDecoder(), packets)
        #expect(decoded.first?.timing.presentationTime == MediaTime.zero)
        var expected = MediaTime.zero
        for sample in decoded {
            #expect(sample.timing.presentationTime == expected)
            expected += sample.timing.duration
        }
    }

    @Test func garbagePacketIsATypedErrorWithItsIndex() throws {
        var packets = try PCM.run(try AACEncoder(), PCM.sine(frames: 5000))
        packets[2].data = [UInt8](repeating: 0xFF, count: 300)
        do {
            _ = try PCM.run(AACDecoder(), packets)
            Issue.record("garbage decoded without error")
        } catch let error as MediaError {
            #expect(error.code == .decoderFailure)
            #expect(error.sampleIndex == 2)
        }
    }

    @Test func refusesPCM() throws {
        #expect { try PCM.run(AACDecoder(), PCM.sine(frames: 10)) } throws: {
            ($0 as? MediaError)?.code == .formatMismatch
        }
    }
}
