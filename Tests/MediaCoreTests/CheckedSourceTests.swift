import MediaCore
import MediaTestSupport
import Testing

/// Counts the calls that reach it: two samples, then an error that a second call would repeat, or
/// (with `failing` false) the end, after which it would hand out a third sample.
private final class CallCountingSource: MediaSource {
    let name = "Counter"
    let failing: Bool
    private(set) var calls = 0

    init(failing: Bool) { self.failing = failing }

    func next() throws -> MediaSample? {
        defer { calls += 1 }
        switch calls {
        case 0, 1:
            return packets(count: 1, duration: 1024, timescale: 48_000, format: audioFormat, startIndex: calls)[0]
        case 2:
            if failing { throw MediaError.truncated("packet", needed: 100, available: 10, at: 4_000) }
            return nil
        default:
            return packets(count: 1, duration: 1024, timescale: 48_000, format: audioFormat, startIndex: calls)[0]
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct CheckedSourceTests {
    @Test func anErrorIsStampedOnceAndTheSourceIsNotCalledAgain() throws {
        let counter = CallCountingSource(failing: true)
        let source = CheckedSource(counter)
        #expect(try source.next() != nil)
        #expect(try source.next() != nil)
        do {
            _ = try source.next()
            Issue.record("the error was not thrown")
        } catch let error as MediaError {
            #expect(error.code == .truncated && error.stage == "Counter" && error.sampleIndex == 2)
            #expect(error.byteOffset == 4_000)
        }
        #expect(source.state == .failed)
        #expect(try source.next() == nil)
        #expect(try source.next() == nil)
        #expect(counter.calls == 3)
        #expect(source.sampleCount == 2)
    }

    @Test func afterItsEndTheSourceIsNotCalledAgain() throws {
        let counter = CallCountingSource(failing: false)
        let source = CheckedSource(counter)
        while try source.next() != nil {}
        #expect(source.state == .finished)
        #expect(try source.next() == nil)  // the counter would hand out a third sample
        #expect(counter.calls == 3)
    }

    @Test func theAsyncSequenceFollowsTheSamePolicy() async throws {
        let counter = CallCountingSource(failing: true)
        var iterator = counter.samples.makeAsyncIterator()
        #expect(try await iterator.next() != nil)
        #expect(try await iterator.next() != nil)
        await #expect(throws: MediaError.self) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
        #expect(counter.calls == 3)
    }
}
