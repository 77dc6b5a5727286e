internal import CMediaFFmpeg
public import MediaCore

/// Any libavfilter graph as one stage: `ffmpeg -af`/`-vf`, or GStreamer's `avfilter` element.
///
/// ```swift
/// let loudness = try FilterGraphStage("loudnorm=I=-16:TP=-1.5,aresample=48000")
/// let small = try FilterGraphStage("scale=640:-2")
/// let caption = try FilterGraphStage("drawtext=text='Live':fontsize=48:fontcolor=white:box=1:x=20:y=20")
/// ```
///
/// - Input: raw audio (linear PCM of any ``/MediaCore/PCMSampleType`` but packed 24-bit, interleaved or
///   planar) or raw video (any ``/MediaCore/PixelFormat``); the first sample fixes the graph's input
///   format, and a sample of another format throws ``/MediaCore/MediaError/Code/formatMismatch``. An
///   audio sample's trims are applied before it enters the graph (a filter knows no trims).
/// - Graph: `description` in FFmpeg's filter-graph syntax, one chain from the input to the output (the
///   `-af`/`-vf` form: filters joined by `,`, options after `=`, separated by `:`). Built at the first
///   sample, when the input format is known. An unknown filter is refused at `init`; options a filter
///   refuses at the first sample, both with ``/MediaCore/MediaError/Code/invalidArgument`` naming the
///   filter (its place in the chain and its text) and FFmpeg's reason.
/// - Output: what the graph's last filter produces, as the graph negotiated it: PCM for audio (e.g.
///   `loudnorm` gives 64-bit float at 192 kHz: append `aresample=48000` for 48 kHz); for video one of the
///   pixel formats the library has (the graph converts to the nearest, as `ffmpeg` does). The number
///   of samples out need not match the number in: a filter may hold frames back (released by
///   ``finish(into:)``), drop or add them.
/// - Timing: input times go into the graph in its time base (1/rate for audio; the input's timescale
///   for video) and come out in the graph's output time base, converted back exactly: a filter that
///   changes timing (`atempo`, `fps`, `setpts`) is honoured. An audio sample's duration is its frame
///   count at its rate; a video frame's is 1/frame rate of the output (the input's duration where the
///   graph does not say). Decode time equals presentation time (raw media).
///
/// Backed by libavfilter (`avfilter_graph_parse_ptr`, `av_buffersrc_add_frame_flags`,
/// `av_buffersink_get_frame`). Use it where a filter is the best tool (loudness normalisation, text
/// rendering, deinterlacing); the mixer, gain and pan are Swift.
public final class FilterGraphStage: MediaStage {
    /// The graph, in FFmpeg's filter-graph syntax.
    public let graphDescription: String
    /// The threads the graph's filters may use (0: one per CPU).
    public let threadCount: Int
    private var session: FilterSession?
    private var hasFinished = false

    /// A stage running `description`, with filters using up to `threadCount` threads (0: one per CPU).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for an empty description or one that names
    ///   a filter this FFmpeg does not have.
    public init(_ description: String, threadCount: Int = 0) throws(MediaError) {
        FFmpeg.quietLogging()
        guard !description.trimmingPrefix(while: \.isWhitespace).isEmpty else {
            throw MediaError(.invalidArgument, "a filter graph needs a description, such as \"volume=0.5\"")
        }
        for (index, filter) in FilterChainText.filters(of: description).enumerated()
        where avfilter_get_by_name(filter.name) == nil {
            throw MediaError(
                .invalidArgument,
                "FFmpeg has no filter named \"\(filter.name)\" (the \(FilterChainText.ordinal(index + 1)) filter of \"\(description)\"; `ffmpeg -filters` lists those it has)"
            )
        }
        graphDescription = description
        self.threadCount = max(0, threadCount)
    }

    /// `FilterGraph(description)`.
    public var name: String { "FilterGraph(\(graphDescription))" }

    /// Filters one sample; emits whatever the graph gives back for it (nothing, one or several samples).
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        guard !hasFinished else { throw MediaError.stageFinished(name) }
        if session == nil {
            session = try FilterSession(
                description: graphDescription, input: sample, threadCount: threadCount, stage: name)
        }
        guard let session else { return }
        try session.push(sample)
        try session.pull(into: emit)
    }

    /// Flushes the graph: emits what its filters held back (a look-ahead, a resampler's delay).
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        guard !hasFinished else { throw MediaError.stageFinished(name) }
        hasFinished = true
        guard let session else { return }
        try session.pushEnd()
        try session.pull(into: emit)
        self.session = nil
    }
}

@available(*, unavailable) extension FilterGraphStage: Sendable {}
