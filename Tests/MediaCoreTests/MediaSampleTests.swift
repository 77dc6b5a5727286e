@testable import MediaCore
import Testing

@Suite(.timeLimit(.minutes(2))) struct MediaSampleTests {
    let format = MediaFormat.audio(.pcm(.s16, sampleRate: 48_000, channels: 2))

    func sample() -> MediaSample {
        MediaSample(
            format: format, data: [1, 2, 3, 4], timing: .audio(startFrame: 0, frameCount: 1, sampleRate: 48_000),
            frameCount: 1)
    }

    @Test func copiesAreIndependent() {
        let original = sample()
        var copy = original
        #expect(copy.sharesStorage(with: original))
        copy.trimAtStart = 7
        copy.data[0] = 99
        #expect(!copy.sharesStorage(with: original))
        #expect(original.trimAtStart == 0)
        #expect(original.data == [1, 2, 3, 4])
        #expect(copy.data == [99, 2, 3, 4])
        #expect(copy != original)
    }

    @Test func uniquelyOwnedSampleIsMutatedInPlace() {
        var unique = sample()
        // A weak reference to the storage object itself: it does not count for `isKnownUniquelyReferenced`,
        // and it becomes nil if a mutation copied the storage (the old one is freed). Comparing a plane's
        // address could not tell: a copied storage shares the plane's buffer, which is unique again (so
        // mutated in place, same address) once the old storage is freed (mutant core-cow-always).
        weak let original = unique.storage
        unique.trimAtEnd = 3
        unique.withUnsafeMutableBytes { $0[0] = 42 }
        #expect(original != nil)
        #expect(original === unique.storage)
        #expect(unique.data[0] == 42)
        #expect(unique.trimAtEnd == 3)
    }

    @Test func equalityIsByContent() {
        #expect(sample() == sample())
        #expect(sample().hashValue == sample().hashValue)
        var other = sample()
        other.flags = [.discontinuity]
        #expect(other != sample())
    }

    @Test func validFramesSubtractTrims() {
        var s = MediaSample(
            format: format, data: [], timing: .invalid, frameCount: 1024, trimAtStart: 1000, trimAtEnd: 20)
        #expect(s.validFrameCount == 4)
        s.trimAtEnd = 100
        #expect(s.validFrameCount == 0)
    }

    @Test func pcmLayoutValidation() throws {
        let ok = MediaSample(format: format, data: [UInt8](repeating: 0, count: 40), timing: .invalid, frameCount: 10)
        try ok.validatePCMLayout()
        let short = MediaSample(
            format: format, data: [UInt8](repeating: 0, count: 39), timing: .invalid, frameCount: 10)
        #expect { try short.validatePCMLayout() } throws: { ($0 as? MediaError)?.code == .invalidData }
        let planar = MediaFormat.audio(.pcm(.f32Planar, sampleRate: 48_000, channels: 2))
        let onePlane = MediaSample(
            format: planar, planes: [[UInt8](repeating: 0, count: 40)], timing: .invalid, frameCount: 10)
        #expect { try onePlane.validatePCMLayout() } throws: { ($0 as? MediaError)?.code == .invalidData }
        // A frame count whose bytes do not fit in an Int is an error, not an arithmetic trap.
        let huge = MediaSample(format: format, data: [0, 0, 0, 0], timing: .invalid, frameCount: Int.max / 2)
        #expect { try huge.validatePCMLayout() } throws: { ($0 as? MediaError)?.code == .invalidData }
    }

    @Test func videoLayoutValidationNeverTraps() throws {
        let frame = MediaSample(
            format: .video(.raw(.yuv420p, width: 4, height: 2)),
            planes: [[UInt8](repeating: 0, count: 8), [0, 0], [0, 0]],
            timing: .invalid, frameCount: 1)
        guard case .video(let good) = frame.format else { return }
        try frame.validateVideoLayout(good, index: 0)
        // Sizes and strides whose products overflow: each an error naming the frame.
        var wide = good
        wide.width = Int.max
        var tall = good
        tall.height = Int.max / 3
        var strided = good
        strided.bytesPerRow = [Int.max / 2, 2, 2]
        for format in [wide, tall, strided] {
            #expect { try frame.validateVideoLayout(format, index: 7) } throws: {
                ($0 as? MediaError)?.code == .invalidData && ($0 as? MediaError)?.sampleIndex == 7
            }
        }
    }
}
