import MediaCore
import Testing

/// Samples that borrow their bytes (`MediaSample(borrowing:owner:)`, `SampleRecycler.make(...owner:)`):
/// read without a copy, copied before any mutation, the owner kept exactly as long as a copy lives.
@Suite(.timeLimit(.minutes(2))) struct BorrowedSampleTests {
    /// Memory a test owns. `@unchecked Sendable`: its memory is written only in `init`, before the block
    /// is shared.
    final class Block: @unchecked Sendable {
        let base: UnsafeMutableRawBufferPointer

        init(_ bytes: [UInt8]) {
            base = .allocate(byteCount: bytes.count, alignment: 16)
            bytes.withUnsafeBytes { base.copyMemory(from: $0) }
        }

        var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(base) }

        deinit {
            base.deallocate()
        }
    }

    let format = MediaFormat.video(.raw(.yuv420p, width: 4, height: 2))
    let timing = SampleTiming(
        presentationTime: MediaTime(value: 0, timescale: 30), duration: MediaTime(value: 1, timescale: 30))

    @Test func readsWithoutCopyingAndKeepsTheOwnerWhileACopyLives() throws {
        var owner: Block? = Block(Array(0..<8) + [100, 101] + [200, 201])
        let luma = UnsafeRawBufferPointer(rebasing: owner!.bytes[0..<8])
        var sample: MediaSample? = MediaSample(
            format: format,
            borrowing: [
                luma, UnsafeRawBufferPointer(rebasing: owner!.bytes[8..<10]),
                UnsafeRawBufferPointer(rebasing: owner!.bytes[10..<12])
            ],
            owner: owner!, timing: timing, frameCount: 1)
        weak let weakOwner = owner
        owner = nil
        #expect(weakOwner != nil)  // the sample keeps it
        #expect(sample?.borrowsMemory == true)
        let address = sample?.withUnsafeBytes(plane: 0) { $0.baseAddress }
        #expect(address == luma.baseAddress)  // no copy
        #expect(sample?.planes == [Array(0..<8), [100, 101], [200, 201]])
        #expect(sample?.byteCount(plane: 2) == 2)
        let copy = sample
        sample = nil
        #expect(weakOwner != nil)  // the copy keeps it
        #expect(
            copy
                == MediaSample(
                    format: format, planes: [Array(0..<8), [100, 101], [200, 201]], timing: timing, frameCount: 1))
        _ = copy
    }

    @Test func theOwnerGoesWithTheLastCopy() {
        var block: Block? = Block([1, 2, 3])
        weak let weakBlock = block
        var sample: MediaSample? = MediaSample(
            format: .audio(.aac(sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [0x11, 0x90])),
            borrowing: [block!.bytes], owner: block!, timing: timing, frameCount: 1024)
        block = nil
        var copies: [MediaSample] = Array(repeating: sample!, count: 3)
        sample = nil
        #expect(copies[0].data == [1, 2, 3])
        copies.removeLast(2)
        #expect(weakBlock != nil)
        copies.removeAll()
        #expect(weakBlock == nil)
    }

    @Test func mutatingCopiesTheBorrowedBytesAndNeverWritesThem() throws {
        let block = Block([1, 2, 3, 4])
        let original = MediaSample(
            format: .audio(.aac(sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [0x11, 0x90])),
            borrowing: [block.bytes], owner: block, timing: timing, frameCount: 1024)
        var changed = original
        changed.withUnsafeMutableBytes { $0[0] = 99 }
        #expect(changed.data == [99, 2, 3, 4])
        #expect(!changed.borrowsMemory)
        #expect(original.data == [1, 2, 3, 4])
        #expect(Array(block.bytes) == [1, 2, 3, 4])  // the owner's memory is untouched
        #expect(original.borrowsMemory)
    }

    @Test func recyclerReusesTheStorageAndLetsGoOfTheOldOwner() {
        var recycler = SampleRecycler()
        var first: Block? = Block([1, 2])
        weak let weakFirst = first
        var sample: MediaSample? = recycler.make(
            format: format, timing: timing, frameCount: 1, planeCount: 1, owner: first!
        ) { _ in first!.bytes }
        first = nil
        #expect(sample?.data == [1, 2])
        sample = nil  // the consumer is done; the recycler still holds the sample, so the owner lives
        #expect(weakFirst != nil)
        let second = Block([7, 8, 9])
        let next = recycler.make(format: format, timing: timing, frameCount: 1, planeCount: 1, owner: second) { _ in
            second.bytes
        }
        #expect(next.data == [7, 8, 9])
        #expect(weakFirst == nil)  // and the first owner is let go
        // An owned refill after a borrowed one keeps no owner either.
        let owned = recycler.make(format: format, timing: timing, frameCount: 1) { $0 += [5] }
        #expect(!owned.borrowsMemory)
        #expect(owned.data == [5])
    }
}
