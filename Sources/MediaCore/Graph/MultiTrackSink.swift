/// Consumes the samples of several tracks at once: a container muxer with one track per input branch
/// (`AVAssetWriter` with several inputs, GStreamer's `mp4mux` with several sink pads).
///
/// A ``MediaGraph`` drives it:
/// 1. ``begin(tracks:)`` once, as soon as every track's first sample is known (or the track has ended
///    empty): the formats in track order, so that a muxer can write its header with every track's
///    codec configuration (the AudioSpecificConfig, the SPS/PPS) before the first packet.
/// 2. ``write(_:track:)`` for each sample, interleaved by decode time across tracks (within the
///    graph's documented bound, ``Interleaving``), and in non-decreasing decode time within a track.
/// 3. ``finish()`` once, also after an error elsewhere in the graph, so that what was written stays a
///    valid file. When the run failed before any track had its first sample, `finish` comes without
///    `begin`: the sink closes its output and writes nothing.
///
/// The graph guarantees that order (and that nothing but `finish` follows a throw) and stamps every
/// error with the sink's ``name`` and sample index, so a sink keeps only its media logic. To drive a
/// multi-track sink by hand, wrap it in a ``CheckedMultiTrackSink``, which gives the same guarantees.
///
/// Which track a sample belongs to is not a field of the sample: the graph knows which branch feeds
/// which input of the sink, and says so with the `track` index (GStreamer's request pads). The same
/// encoded branch can so feed track 0 of one muxer and track 1 of another.
public protocol MultiTrackSink {
    /// The tracks' formats in track order; `nil` for a track that ended without producing a sample.
    mutating func begin(tracks: [MediaFormat?]) throws
    /// What a ``MediaGraph`` calls instead of ``begin(tracks:)``: the first sample of each track (not yet
    /// written; it comes again through ``write(_:track:)``), so that a sink can also take what the
    /// timing says (a container's time base from the samples' timescale). The default calls
    /// ``begin(tracks:)`` with the samples' formats.
    mutating func begin(firstSamples: [MediaSample?]) throws
    /// Consumes one sample of track `track` (an index into the formats given to ``begin(tracks:)``).
    mutating func write(_ sample: MediaSample, track: Int) throws
    /// Writes what is pending (trailer, index, sizes) and closes the output. Called once.
    mutating func finish() throws
    /// A short name for errors and progress, e.g. `ContainerMuxer(mp4)`. Defaults to the type's name.
    var name: String { get }
}

extension MultiTrackSink {
    /// Calls ``begin(tracks:)`` with the samples' formats.
    public mutating func begin(firstSamples: [MediaSample?]) throws {
        try begin(tracks: firstSamples.map { $0?.format })
    }

    /// The type's name.
    public var name: String { String(describing: type(of: self)) }
}
