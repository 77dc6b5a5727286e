@testable import MediaPulse
import Synchronization
import Testing

/// The capture ring on its own (no daemon): a full ring keeps what it holds and drops what arrives, and
/// the slot after a drop says how many frames were lost and where it sits on the timeline.
@Suite(.timeLimit(.minutes(10))) struct CaptureRingTests {
    /// Frame `i` of the test data is the byte `i` (one byte a frame).
    static func write(_ ring: CaptureRing, frames: Range<Int>) {
        let data = frames.map { UInt8($0) }
        data.withUnsafeBytes { ring.write($0.baseAddress!, frames: data.count) }
    }

    @Test func aFullRingDropsWhatArrivesAndKeepsWhatItHolds() throws {
        let ring = CaptureRing(slotCount: 4, slotFrames: 2, frameBytes: 1)
        ring.start(at: 100)
        Self.write(ring, frames: 0..<10)  // five slots' worth into four slots
        #expect(ring.lostFrames.load(ordering: .relaxed) == 2)
        var read: [UInt8] = []
        for slot in 0..<4 {
            let (record, bytes) = try #require(ring.read())
            #expect(record.startFrame == 100 + Int64(2 * slot) && record.frames == 2 && record.lostFrames == 0)
            read += bytes
        }
        #expect(read == Array(0..<8))  // the oldest four slots, none overwritten
        #expect(ring.read() == nil)
        Self.write(ring, frames: 10..<12)
        let (after, bytes) = try #require(ring.read())
        #expect(after.lostFrames == 2 && after.startFrame == 110)  // the two dropped frames still count
        #expect(bytes == [10, 11])
    }
}
