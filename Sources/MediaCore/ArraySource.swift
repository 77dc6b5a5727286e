/// A source that hands out samples given up front: for tests and for feeding stages by hand.
public struct ArraySource: MediaSource {
    private var samples: [MediaSample]
    private var index = 0

    /// A source of `samples`, in order.
    public init(_ samples: [MediaSample]) { self.samples = samples }

    /// The next sample, or `nil` after the last.
    public mutating func next() throws -> MediaSample? {
        guard index < samples.count else { return nil }
        defer { index += 1 }
        return samples[index]
    }
}
