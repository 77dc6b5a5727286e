import MediaCore
import MediaFormats
import Testing

/// The generators take their length as a Swift `Duration` too.
@Suite(.timeLimit(.minutes(2))) struct GeneratorDurationTests {
    @Test func toneGeneratorLengthFromADuration() throws {
        #expect(try ToneGenerator(sampleRate: 48_000, length: .duration(.milliseconds(250))).totalFrames == 12_000)
        #expect(try ToneGenerator(sampleRate: 44_100, length: .duration(.seconds(2))).totalFrames == 88_200)
        // 1 ms at 44.1 kHz is 44.1 frames: rounded to nearest, as for a MediaTime.
        #expect(try ToneGenerator(sampleRate: 44_100, length: .duration(.milliseconds(1))).totalFrames == 44)
        #expect(try ToneGenerator(sampleRate: 8000, length: .duration(.zero)).totalFrames == 0)
        #expect(throws: MediaError.self) { try ToneGenerator(length: .duration(Duration.milliseconds(-5))) }
    }

    @Test func testPatternLengthFromADuration() throws {
        let pattern = try TestPatternGenerator(
            width: 64, height: 48, frameRate: FrameRate(25), length: .duration(.milliseconds(1000)))
        #expect(pattern.totalFrames == 25)
    }
}
