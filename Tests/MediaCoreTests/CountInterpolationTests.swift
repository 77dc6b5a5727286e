import MediaCore
import Testing

/// Counts in messages read "1 byte", never "1 bytes".
@Suite(.timeLimit(.minutes(2))) struct CountInterpolationTests {
    @Test func singularForOneOnly() {
        #expect("\(count: 1, "byte")" == "1 byte")
        #expect("\(count: 0, "byte")" == "0 bytes")
        #expect("\(count: 2, "byte")" == "2 bytes")
        #expect("\(count: -1, "byte")" == "-1 bytes")
        #expect("\(count: UInt32(1), "frame")" == "1 frame")
        #expect("\(count: Int64(4096), "frame")" == "4096 frames")
        #expect("\(count: 1, "entry", plural: "entries")" == "1 entry")
        #expect("\(count: 3, "entry", plural: "entries")" == "3 entries")
    }

    @Test func libraryMessagesUseIt() {
        let error = MediaError.truncated("ADTS header", needed: 1, available: 0, at: 7)
        #expect(error.message == "ADTS header needs 1 byte but only 0 remain")
        let two = MediaError.truncated("ADTS header", needed: 2, available: 1, at: 7)
        #expect(two.message == "ADTS header needs 2 bytes but only 1 remain")
    }
}
