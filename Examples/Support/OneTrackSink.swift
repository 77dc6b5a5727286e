public import MediaCore

/// A one-track ``MultiTrackSink`` (a `ContainerMuxer` writing M4A) driven as a ``MediaSink``, so that a
/// ``Pipeline`` can write to it: the first sample begins the track.
public struct OneTrackSink<Base: MultiTrackSink>: MediaSink {
    /// The muxer.
    public private(set) var base: Base
    private var begun = false

    /// Drives `base` as a sink of one track.
    public init(_ base: Base) { self.base = base }

    /// The muxer's name.
    public var name: String { base.name }

    /// Begins the track with the first sample, then writes every sample to track 0.
    public mutating func write(_ sample: MediaSample) throws {
        if !begun {
            begun = true
            try base.begin(firstSamples: [sample])
        }
        try base.write(sample, track: 0)
    }

    /// Finishes the muxer.
    public mutating func finish() throws { try base.finish() }
}
