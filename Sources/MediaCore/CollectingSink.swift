/// A sink that keeps every sample in memory: for tests and small jobs.
public struct CollectingSink: MediaSink {
    /// The samples written so far.
    public private(set) var samples: [MediaSample] = []
    /// Whether ``finish()`` has run.
    public private(set) var isFinished = false

    /// An empty sink.
    public init() {}

    /// Appends `sample`.
    public mutating func write(_ sample: MediaSample) throws {
        guard !isFinished else { throw MediaError.stageFinished(name) }
        samples.append(sample)
    }

    /// Marks the sink finished.
    public mutating func finish() throws {
        guard !isFinished else { throw MediaError.stageFinished(name) }
        isFinished = true
    }
}
