@testable import MediaCore
import MediaTestSupport
import Testing

/// `SampleRecycler`: storage and buffer reused only when nobody else holds the previous sample. Reuse is
/// seen by identity: weak references to the previous sample's storage object and buffers are still set
/// (neither was freed) and are the new sample's. An address alone could be malloc's reuse of a freed block.
@Suite(.timeLimit(.minutes(2))) struct SampleRecyclerTests {
    let format = MediaFormat.audio(.aac(sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [0x11, 0x90]))

    func timing(_ index: Int64) -> SampleTiming {
        .audio(startFrame: index * 1024, frameCount: 1024, sampleRate: 48_000)
    }

    @Test func reusesStorageAndBufferOnceTheConsumerLetsGo() {
        var recycler = SampleRecycler()
        var first: MediaSample? = recycler.make(format: format, timing: timing(0), frameCount: 1024) {
            $0 += [1, 2, 3, 4, 5, 6]
        }
        weak let firstStorage = first?.storage
        weak let firstBuffer = first.flatMap { ArrayBuffer.object(of: $0.data) }
        #expect(firstStorage != nil && firstBuffer != nil)
        first = nil  // the consumer is done with it
        let second = recycler.make(format: format, timing: timing(1), frameCount: 1024, trimAtEnd: 24) {
            $0 += [9, 8, 7]
        }
        #expect(firstStorage != nil && firstStorage === second.storage, "the storage object was replaced")
        #expect(firstBuffer != nil && firstBuffer === ArrayBuffer.object(of: second.data), "the buffer was replaced")
        #expect(second.data == [9, 8, 7])
        #expect(second.timing == timing(1))
        #expect(second.trimAtEnd == 24)
        #expect(second.planeCount == 1)
    }

    @Test func aSampleStillHeldIsNeverChanged() {
        var recycler = SampleRecycler()
        let kept = recycler.make(format: format, timing: timing(0), frameCount: 1024, flags: [.keyframe]) {
            $0 += [1, 2, 3]
        }
        let keptBytes = kept.data  // a consumer may also keep just the bytes
        let next = recycler.make(format: format, timing: timing(1), frameCount: 512, flags: [.discontinuity]) {
            $0 += [4]
        }
        #expect(!next.sharesStorage(with: kept))
        #expect(kept.data == [1, 2, 3])
        #expect(keptBytes == [1, 2, 3])
        #expect(kept.timing == timing(0))
        #expect(kept.frameCount == 1024)
        #expect(kept.flags == [.keyframe])
        #expect(next.data == [4])
        #expect(next.flags == [.discontinuity])
    }

    @Test func keptBytesAloneAreNotOverwritten() {
        var recycler = SampleRecycler()
        var first: MediaSample? = recycler.make(format: format, timing: timing(0), frameCount: 1024) { $0 += [1, 2, 3] }
        let bytes = first?.data ?? []
        first = nil
        let second = recycler.make(format: format, timing: timing(1), frameCount: 1024) { $0 += [7, 7, 7] }
        #expect(bytes == [1, 2, 3])
        #expect(second.data == [7, 7, 7])
    }

    @Test func aThrowingFillLeavesTheRecyclerUsable() {
        struct Stop: Error {}
        var recycler = SampleRecycler()
        #expect(throws: Stop.self) {
            _ = try recycler.make(format: format, timing: timing(0), frameCount: 1024) {
                (_: inout [UInt8]) throws(Stop) in throw Stop()
            }
        }
        let sample = recycler.make(format: format, timing: timing(1), frameCount: 1024) { $0 += [5] }
        #expect(sample.data == [5])
    }

    @Test func planesAreReusedOneByOne() {
        var recycler = SampleRecycler()
        let video = MediaFormat.video(.raw(.yuv420p, width: 4, height: 2))
        var first: MediaSample? = recycler.make(format: video, timing: timing(0), frameCount: 1, planeCount: 3) {
            plane, bytes in
            bytes += Array(repeating: UInt8(plane), count: plane == 0 ? 8 : 2)
        }
        weak let firstStorage = first?.storage
        let firstPlanes = first?.planes.map { WeakBuffer(ArrayBuffer.object(of: $0)) } ?? []
        #expect(first?.planes == [[0, 0, 0, 0, 0, 0, 0, 0], [1, 1], [2, 2]])
        #expect(firstStorage != nil && firstPlanes.count == 3 && firstPlanes.allSatisfy { $0.object != nil })
        first = nil
        let second = recycler.make(format: video, timing: timing(1), frameCount: 1, planeCount: 3) { plane, bytes in
            bytes += Array(repeating: UInt8(10 + plane), count: plane == 0 ? 8 : 2)
        }
        #expect(firstStorage != nil && firstStorage === second.storage, "the storage object was replaced")
        for (plane, buffer) in firstPlanes.enumerated() {
            #expect(
                buffer.object != nil && buffer.object === ArrayBuffer.object(of: second.planes[plane]),
                "plane \(plane)'s buffer was replaced")
        }
        #expect(second.planes == [Array(repeating: 10, count: 8), [11, 11], [12, 12]])
        // A different plane count on reuse gets exactly that many planes.
        let one = recycler.make(format: format, timing: timing(2), frameCount: 1024) { $0 += [7] }
        #expect(one.planes == [[7]])
    }
}

/// A weak reference to a buffer (``ArrayBuffer``), to keep in an array.
struct WeakBuffer {
    weak var object: AnyObject?
    init(_ object: AnyObject?) { self.object = object }
}
