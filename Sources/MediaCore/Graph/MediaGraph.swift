public import Logging

/// Several branches of media (source → stages) feeding sinks: audio and video into one container,
/// one encode into a file and a stream at once. `AVAssetWriter` with several inputs, or a GStreamer
/// pipeline with a muxer and a `tee`.
///
/// ```swift
/// var graph = MediaGraph()
/// let audio = graph.addBranch(source: tone, stages: [try AACEncoder(bitRate: 128_000)])
/// let video = graph.addBranch(source: pattern, stages: [try H264Encoder(settings: settings)])
/// graph.addSink(try ContainerMuxer(path: "out.mp4"), tracks: [video, audio])   // one track per branch
/// graph.addSink(ADTSMuxer(output: try FileOutput(path: "out.aac")), input: audio)  // fan-out
/// try graph.runSynchronously()        // on this thread
/// // or: try graph.runThreaded()       // a thread per branch and per sink, bounded queues
/// // or: try await graph.run()         // async; cancelling the task finishes every file
/// ```
///
/// **Ownership.** The graph owns what it is given: the parameters are `sending`, so the compiler
/// checks that the caller keeps no reference to a stage that may run on another thread. A sink to look
/// at after the run is one that is `Sendable` itself (``SampleCollector``); counts per branch and per
/// sink are in ``Progress``.
///
/// **Order.** The driver owns each stage's life cycle: `process` for each sample, `finish` once at the
/// end of its branch, nothing after a stage threw. Every error is stamped with the stage's name and
/// the index of the sample it was given (``MediaError/stage``, ``MediaError/sampleIndex``). The guard
/// is the one a hand-driver uses: each stage sits in a ``CheckedStage``, each sink in a
/// ``CheckedMultiTrackSink``.
///
/// **Time.** Each branch keeps its source's timeline: samples from files carry file time, and live
/// sources stamp theirs on a shared ``MediaClock``, so branches that start together start at the same
/// media time (``RealTimeSource`` on one clock: both first samples at the clock's anchor). The
/// synchronous run always pulls from the branch that is furthest behind in media time, so the branches
/// advance together.
///
/// **Interleaving.** A multi-track sink receives samples interleaved by decode time, and its queue is
/// bounded as ``Interleaving`` documents: a slow, stalled or finished branch never makes memory grow.
///
/// **Errors and the end.** When a source fails (a file cut short), its branch's stages are drained and
/// the other branches run to their end; the error is thrown after every sink has finished. When a
/// stage or a sink fails, the run stops, whatever is queued is written, every sink is finished (so
/// that what was written stays a valid file), and the error is thrown.
public struct MediaGraph: Sendable {
    /// A branch of the graph: one source and its stages.
    public struct BranchID: Hashable, Sendable {
        /// The branch's position in the order branches were added.
        public let index: Int
    }

    /// A sink of the graph.
    public struct SinkID: Hashable, Sendable {
        /// The sink's position in the order sinks were added.
        public let index: Int
    }

    /// How much a sink may buffer while it waits for a slow branch.
    public var interleaving: Interleaving
    /// Where the diagnostics of the graph's sources, stages and sinks go (see ``DiagnosticReporting``);
    /// `nil` keeps them silent, and ``Progress/warnings`` holds them either way.
    public let logger: Logger?
    /// The warnings of the run, for ``Progress``.
    let diagnostics = DiagnosticCollector()

    var branches: [Handoff<BranchRunner>] = []
    var sinks: [Handoff<SinkRunner>] = []
    /// For each branch, the (sink, track) inputs its output feeds.
    var routes: [[Route]] = []
    var branchNames: [String] = []
    var sinkNames: [String] = []

    /// An empty graph whose sinks buffer as `interleaving` says. Each source, stage and sink added that
    /// adopts ``DiagnosticReporting`` and has no logger of its own gets `logger` (default: none).
    public init(interleaving: Interleaving = Interleaving(), logger: Logger? = nil) {
        self.interleaving = interleaving
        self.logger = logger
    }

    /// Adds a branch: `source` → `stages` in order. `name` (default: the source's name) appears in
    /// progress and errors.
    @discardableResult
    public mutating func addBranch(
        _ name: String? = nil, source: sending any MediaSource, stages: sending [any MediaStage] = []
    ) -> BranchID {
        diagnostics.attach(to: source, user: logger)
        for stage in stages { diagnostics.attach(to: (stage as? CheckedStage)?.base ?? stage, user: logger) }
        let runner = BranchRunner(name: name, source: source, stages: stages)
        branchNames.append(runner.name)
        branches.append(Handoff(runner))
        routes.append([])
        return BranchID(index: branches.count - 1)
    }

    /// Adds a multi-track sink whose track `i` is fed by `tracks[i]`.
    @discardableResult
    public mutating func addSink(_ sink: sending any MultiTrackSink, tracks: [BranchID]) -> SinkID {
        diagnostics.attach(to: (sink as? SingleTrackSink)?.base ?? sink, user: logger)
        let runner = SinkRunner(sink: sink, trackCount: tracks.count)
        let id = SinkID(index: sinks.count)
        sinkNames.append(runner.name)
        sinks.append(Handoff(runner))
        for (track, branch) in tracks.enumerated() where routes.indices.contains(branch.index) {
            routes[branch.index].append(Route(sink: id.index, track: track))
        }
        return id
    }

    /// Adds a single-track sink (an ADTS, Annex-B, CAF or WAV muxer) fed by `input`.
    @discardableResult
    public mutating func addSink(_ sink: sending any MediaSink, input: BranchID) -> SinkID {
        addSink(SingleTrackSink(sink), tracks: [input])
    }

    /// What a run has done so far, per branch and per sink.
    public struct Progress: Sendable, Hashable {
        /// Counts for one branch.
        public struct Branch: Sendable, Hashable {
            /// The branch's name.
            public var name: String
            /// Samples its source produced.
            public var samplesRead: Int64 = 0
            /// Audio frames its source produced: the sum of ``MediaSample/frameCount`` over its samples of
            /// an audio format. Video samples are counted in ``videoFramesRead``, not here.
            public var framesRead: Int64 = 0
            /// Video frames (pictures, compressed or raw) its source produced: one per video sample.
            public var videoFramesRead: Int64 = 0
            /// The end (presentation time plus duration) of the last sample from its source; its
            /// presentation time when it has no duration.
            public var position: MediaTime = .invalid
            /// Samples that left its last stage.
            public var samplesOut: Int64 = 0
        }

        /// Counts for one sink.
        public struct Sink: Sendable, Hashable {
            /// The sink's name.
            public var name: String
            /// Samples written to it.
            public var samplesWritten: Int64 = 0
            /// Bytes of sample data written to it.
            public var bytesWritten: Int64 = 0
            /// The most samples its interleaving queue held at once (bounded by ``Interleaving``).
            public var maxQueuedSamples: Int = 0
        }

        /// One entry per branch, in the order they were added.
        public var branches: [Branch]
        /// One entry per sink, in the order they were added.
        public var sinks: [Sink]
        /// Warnings the graph's components logged so far (see ``DiagnosticReporting``).
        public var warningCount = 0
        /// The first 16 of those warnings, in the order they were logged.
        public var warnings: [MediaDiagnostic] = []

        /// The earliest position of the branches: how far the whole graph has got.
        public var position: MediaTime {
            branches.map(\.position).filter(\.isNumeric).min() ?? .invalid
        }
    }

    /// Progress with zero counts for this graph's branches and sinks.
    var emptyProgress: Progress {
        Progress(branches: branchNames.map { .init(name: $0) }, sinks: sinkNames.map { .init(name: $0) })
    }

    /// Takes every branch and sink out of their hand-offs for a run on this thread; throws if a run took
    /// them already.
    func takeAll() throws(MediaError) -> (branches: [BranchRunner], sinks: [SinkRunner]) {
        var takenBranches: [BranchRunner] = []
        var takenSinks: [SinkRunner] = []
        for (index, handoff) in branches.enumerated() {
            guard let runner = handoff.take() else { throw MediaError.stageFinished("MediaGraph") }
            runner.routes = routes[index]
            takenBranches.append(runner)
        }
        for handoff in sinks {
            guard let runner = handoff.take() else { throw MediaError.stageFinished("MediaGraph") }
            runner.prepare(bound: interleaving)
            takenSinks.append(runner)
        }
        guard !takenBranches.isEmpty else {
            throw MediaError(.invalidArgument, "the graph has no branch to run")
        }
        return (takenBranches, takenSinks)
    }
}

/// One input of one sink: which sink, and which of its tracks.
struct Route: Sendable, Hashable {
    var sink: Int
    var track: Int
}
