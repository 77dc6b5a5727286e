internal import CMediaFFmpeg
public import MediaCore

/// A libavfilter generator graph as a source: `ffmpeg -f lavfi -i …`, or GStreamer's `videotestsrc`
/// and `audiotestsrc` with FFmpeg's filters after them.
///
/// ```swift
/// let bars = try FilterGraphSource("testsrc2=size=1280x720:rate=30", duration: .seconds(10))
/// let clock = try FilterGraphSource("color=c=black:s=640x80:r=30,drawtext=text='%{localtime}':fontcolor=white")
/// ```
///
/// - Graph: `description` in FFmpeg's filter-graph syntax, a chain whose first filter is a source
///   (`color`, `testsrc2`, `sine`, `anullsrc`, …); built at the first ``next()``. An unknown filter is
///   refused at `init`, options a filter refuses at the first ``next()``, both with
///   ``/MediaCore/MediaError/Code/invalidArgument`` naming the filter.
/// - Output: raw video (one of the library's pixel formats: the graph converts to the nearest) or PCM
///   audio, as the chain's last filter gives it, timed by the graph (its first frame at 0).
/// - End: when the graph ends (a source given `duration=`/`d=`), or at `duration`; many generators
///   never end without one.
public final class FilterGraphSource: MediaSource {
    /// The graph, in FFmpeg's filter-graph syntax.
    public let graphDescription: String
    /// Where the source ends, or `nil`: when the graph ends.
    public let duration: MediaTime?
    private var session: FilterSession?
    private var hasEnded = false
    private let onBuilt: (() -> Void)?
    private var didBuild = false

    /// A source running the generator `description` until it ends, or until `duration`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for an empty description or an unknown filter.
    public convenience init(_ description: String, duration: MediaTime? = nil) throws(MediaError) {
        try self.init(description, duration: duration, onBuilt: nil)
    }

    /// As the public init; `onBuilt` runs once the graph is built (a text layer removes its text file).
    init(_ description: String, duration: MediaTime?, onBuilt: (() -> Void)?) throws(MediaError) {
        _ = try FilterGraphStage(description)  // the same checks of the description
        graphDescription = description
        self.duration = duration
        self.onBuilt = onBuilt
    }

    deinit { if !didBuild { onBuilt?() } }

    /// `FilterGraphSource(description)`.
    public var name: String { "FilterGraphSource(\(graphDescription))" }

    /// The graph's next frame, or `nil` at its end (or `duration`).
    public func next() throws -> MediaSample? {
        guard !hasEnded else { return nil }
        if !didBuild {
            didBuild = true
            defer { onBuilt?() }
            session = try FilterSession(generator: graphDescription, threadCount: 1, stage: name)
        }
        guard let sample = try session?.generate() else {
            hasEnded = true
            session = nil
            return nil
        }
        if let duration, sample.timing.presentationTime.isNumeric, sample.timing.presentationTime >= duration {
            hasEnded = true
            session = nil
            return nil
        }
        return sample
    }
}

@available(*, unavailable) extension FilterGraphSource: Sendable {}
