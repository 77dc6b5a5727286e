import MediaCore
import Testing

/// Typed PCM in and out of a sample, and slicing by frames, without `[UInt8]` on the caller's side.
@Suite(.timeLimit(.minutes(2))) struct MediaSamplePCMTests {
    let stereoF32 = AudioFormat.pcm(.f32, sampleRate: 48_000, channels: 2)
    let stereoS16 = AudioFormat.pcm(.s16, sampleRate: 8000, channels: 2)

    @Test func interleavedFloatRoundTrip() throws {
        let values: [Float] = [0, 0, 0.5, -0.5, 1, -1]
        let sample = try MediaSample(pcm: values, format: stereoF32, startFrame: 480)
        #expect(sample.frameCount == 3)
        #expect(sample.byteCount == 24)
        #expect(sample.timing.presentationTime == MediaTime(value: 480, timescale: 48_000))
        #expect(sample.timing.duration == MediaTime(value: 3, timescale: 48_000))
        #expect(try sample.pcm(as: Float.self) == values)
        // Little-endian bytes, as every other PCM sample holds them.
        #expect(Array(sample.data[8..<12]) == [0, 0, 0, 0x3F])
        let peak = try sample.withPCM(as: Float.self) { $0.map(abs).max() ?? 0 }
        #expect(peak == 1)
    }

    @Test func int16AndPlanar() throws {
        let sample = try MediaSample(pcm: [1, -1, 32767, -32768] as [Int16], format: stereoS16)
        #expect(try sample.pcm(as: Int16.self) == [1, -1, 32767, -32768])
        #expect(sample.data == [1, 0, 0xFF, 0xFF, 0xFF, 0x7F, 0x00, 0x80])

        let planar = AudioFormat.pcm(.f32Planar, sampleRate: 48_000, channels: 2)
        let split = try MediaSample(pcmPlanes: [[0.25, 0.5], [-0.25, -0.5]] as [[Float]], format: planar)
        #expect(split.planeCount == 2 && split.frameCount == 2)
        #expect(try split.pcm(as: Float.self, plane: 1) == [-0.25, -0.5])
    }

    @Test func mutatingInPlaceCopiesSharedStorageFirst() throws {
        let original = try MediaSample(pcm: [100, 200, 300, 400] as [Int16], format: stereoS16)
        var copy = original
        try copy.withMutablePCM(as: Int16.self) { values in
            for index in values.indices { values[index] /= 2 }
        }
        #expect(try copy.pcm(as: Int16.self) == [50, 100, 150, 200])
        #expect(try original.pcm(as: Int16.self) == [100, 200, 300, 400])
    }

    @Test func refusesATypeThatDoesNotMatchTheFormat() throws {
        let sample = try MediaSample(pcm: [1, 2] as [Int16], format: stereoS16)
        #expect(throws: MediaError.self) { try sample.pcm(as: Float.self) }
        do {
            _ = try sample.withPCM(as: Float.self) { $0.count }
            Issue.record("read s16 as Float")
        } catch let error as MediaError {
            #expect(error.code == .formatMismatch)
            #expect(error.message.contains("s16"))
        }
        #expect(throws: MediaError.self) { try MediaSample(pcm: [0.5] as [Float], format: stereoS16) }
        // Interleaved values for a planar format, and values that are not whole frames.
        let planar = AudioFormat.pcm(.f32Planar, sampleRate: 48_000, channels: 2)
        #expect(throws: MediaError.self) { try MediaSample(pcm: [0.5, 0.5] as [Float], format: planar) }
        let odd = #expect(throws: MediaError.self) {
            try MediaSample(pcm: [0.5, 0.5, 0.5] as [Float], format: stereoF32)
        }
        #expect(odd?.code == .invalidArgument)
        #expect(throws: MediaError.self) { try sample.pcm(as: Int16.self, plane: 1) }
        // A compressed packet is not PCM.
        let aac = MediaSample(
            format: .audio(.aac(sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [0x11, 0x90])),
            data: [1, 2, 3], timing: .invalid, frameCount: 1024)
        let notPCM = #expect(throws: MediaError.self) { try aac.pcm(as: Float.self) }
        #expect(notPCM?.code == .formatMismatch)
        #expect(throws: MediaError.self) { try aac.pcmFrames(0..<1) }
    }

    @Test func slicingByFramesKeepsTimingAndWorksPlanar() throws {
        let values = (0..<600).map { Float($0) }  // 300 stereo frames: frame n is (2n, 2n + 1)
        let sample = try MediaSample(pcm: values, format: stereoF32, startFrame: 1000)
        let middle = try sample.pcmFrames(100..<200)
        #expect(middle.frameCount == 100)
        #expect(try middle.pcm(as: Float.self) == Array(values[200..<400]))
        #expect(middle.timing.presentationTime == MediaTime(value: 1100, timescale: 48_000))
        #expect(middle.timing.duration == MediaTime(value: 100, timescale: 48_000))
        #expect(try sample.pcmFrames(0..<0).frameCount == 0)
        #expect(throws: MediaError.self) { try sample.pcmFrames(250..<301) }

        let planar = AudioFormat.pcm(.f32Planar, sampleRate: 48_000, channels: 2)
        let left = (0..<300).map { Float($0) }
        let right = left.map { -$0 }
        let split = try MediaSample(pcmPlanes: [left, right], format: planar)
        let tail = try split.pcmFrames(290..<300)
        #expect(try tail.pcm(as: Float.self, plane: 0) == Array(left[290...]))
        #expect(try tail.pcm(as: Float.self, plane: 1) == Array(right[290...]))
    }

    @Test func slicingKeepsTheTrimsThatOverlap() throws {
        var sample = try MediaSample(pcm: [Int16](repeating: 0, count: 200), format: stereoS16)
        sample.trimAtStart = 30
        sample.trimAtEnd = 20
        let head = try sample.pcmFrames(0..<50)
        #expect(head.trimAtStart == 30 && head.trimAtEnd == 0)
        let tail = try sample.pcmFrames(70..<100)
        #expect(tail.trimAtStart == 0 && tail.trimAtEnd == 20)
        let inside = try sample.pcmFrames(10..<20)
        #expect(inside.trimAtStart == 10 && inside.trimAtEnd == 0)
    }
}
