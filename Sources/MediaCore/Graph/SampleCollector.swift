/// A sink that keeps every sample it is given, per track, and can be read while or after a graph runs:
/// for tests, and for small jobs that want the samples in memory.
///
/// A class that is `Sendable`, so that the code that built a ``MediaGraph`` can keep a reference to it
/// while the graph (perhaps on other threads) writes to it.
public final class SampleCollector: MediaSink, MultiTrackSink, Sendable {
    private struct State {
        var formats: [MediaFormat?] = []
        var samples: [(track: Int, sample: MediaSample)] = []
        var begun = 0
        var finished = 0
    }

    private let state = Locked(State())

    /// An empty collector.
    public init() {}

    /// `SampleCollector`.
    public var name: String { "SampleCollector" }

    /// Every sample written so far, in the order written.
    public var samples: [MediaSample] { state.withLock { $0.samples.map(\.sample) } }

    /// The samples of `track`, in the order written.
    public func samples(track: Int) -> [MediaSample] {
        state.withLock { $0.samples.filter { $0.track == track }.map(\.sample) }
    }

    /// The track of each sample written, in the order written.
    public var trackOrder: [Int] { state.withLock { $0.samples.map(\.track) } }

    /// The formats given to ``begin(tracks:)``.
    public var formats: [MediaFormat?] { state.withLock { $0.formats } }

    /// How many times ``finish()`` was called (a graph calls it once).
    public var finishCount: Int { state.withLock { $0.finished } }

    /// Keeps the tracks' formats.
    public func begin(tracks: [MediaFormat?]) throws {
        try state.withLock {
            guard $0.begun == 0, $0.finished == 0 else { throw MediaError.stageFinished("SampleCollector") }
            $0.begun += 1
            $0.formats = tracks
        }
    }

    /// Keeps `sample` as a sample of `track`.
    public func write(_ sample: MediaSample, track: Int) throws {
        try state.withLock {
            guard $0.finished == 0 else { throw MediaError.stageFinished("SampleCollector") }
            $0.samples.append((track, sample))
        }
    }

    /// Keeps `sample` (as track 0).
    public func write(_ sample: MediaSample) throws { try write(sample, track: 0) }

    /// Counts the call.
    public func finish() throws {
        state.withLock { $0.finished += 1 }
    }
}
