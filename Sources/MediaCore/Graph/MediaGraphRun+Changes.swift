extension MediaGraphRun {
    /// Adds a sink to the running graph, fed by `tracks` (track `i` by `tracks[i]`), from any thread:
    /// start a recording mid-stream, add a second destination. GStreamer's tee with a pad requested
    /// while playing; HaishinKit's recording started during a stream.
    ///
    /// ```swift
    /// let run = graph.start()
    /// // at 10 s, from a UI or a command
    /// let recording = try run.addSink(try ContainerMuxer(path: "clip.mp4"), tracks: [video, audio])
    /// // at 20 s
    /// run.removeSink(recording)   // the file is finished and valid
    /// ```
    ///
    /// - Start: each branch starts feeding the sink between two of its samples (a branch waiting on its
    ///   source, a stalled camera, with its next sample). The branches' stages
    ///   that can (``KeyframeForcing``: MediaFFmpeg's `H264Encoder`) are asked for a keyframe at once.
    ///   The sink's start is the latest of its video tracks' first keyframes (with no video, of its
    ///   tracks' first samples); each video track begins at its first keyframe from then on, each
    ///   audio track at its first whole packet from then on, so the file starts with a picture that
    ///   decodes and the tracks start together. With `startsAtZero` (the default) that moment is time zero of the sink's
    ///   timeline, as `AVAssetWriter.startSession(atSourceTime:)` makes it; otherwise the sink gets the
    ///   run's times (a server that expects the stream's clock to continue).
    /// - The others: no other sink or branch waits for it or loses a sample. The sink runs on a thread
    ///   of its own behind a queue of the run's `queueDepth`; a sink slower than the branches holds
    ///   them back, as any sink of the run does (a network destination belongs behind a live queue:
    ///   `LiveStreamSink`, in MediaStreaming).
    /// - End: it finishes when it is removed (``removeSink(_:)``), when its branches end, or when the
    ///   run stops; `onEnd` is then called once, on its thread, with its counts. When the sink itself
    ///   fails, it is finished (what it wrote stays valid), leaves the run, and `onEnd` gets the error;
    ///   the run goes on, and counts the failure among its warnings.
    ///
    /// Throws ``MediaError/Code/invalidArgument`` for an empty `tracks` or a branch the run does not
    /// have, and ``MediaError/Code/stageFinished`` once the run has ended. The returned id indexes
    /// ``MediaGraph/Progress/sinks``.
    @discardableResult
    public func addSink(
        _ sink: sending any MultiTrackSink, tracks: [MediaGraph.BranchID], startsAtZero: Bool = true,
        onEnd: (@Sendable (Result<MediaGraph.Progress.Sink, any Error>) -> Void)? = nil
    ) throws(MediaError) -> MediaGraph.SinkID {
        try run.addSink(sink, tracks: tracks, startsAtZero: startsAtZero, onEnd: onEnd)
    }

    /// Adds a single-track sink (an ADTS, Annex-B, CAF or WAV muxer) fed by `input` to the running
    /// graph; as ``addSink(_:tracks:startsAtZero:onEnd:)``.
    @discardableResult
    public func addSink(
        _ sink: sending any MediaSink, input: MediaGraph.BranchID, startsAtZero: Bool = true,
        onEnd: (@Sendable (Result<MediaGraph.Progress.Sink, any Error>) -> Void)? = nil
    ) throws(MediaError) -> MediaGraph.SinkID {
        try run.addSink(SingleTrackSink(sink), tracks: [input], startsAtZero: startsAtZero, onEnd: onEnd)
    }

    /// Removes a sink from the running graph, from any thread, and returns at once: each branch stops
    /// feeding it between two of its samples, and the sink then writes what it holds and finishes on
    /// its own thread (a valid file; its `onEnd` is called). The other sinks go on untouched. Any sink
    /// may be removed, one of the graph's own too; removing one twice, or after it ended, does nothing.
    public func removeSink(_ sink: MediaGraph.SinkID) { run.removeSink(sink.index) }

    /// Adds a branch to the running graph, from any thread: a source and its stages, which start when
    /// the first sink they feed is added (``addSink(_:tracks:startsAtZero:onEnd:)``), so that no sample
    /// is read before there is somewhere to deliver it. It runs on a thread of its own at its own pace
    /// (the graph's branches wait for each other in media time; one added later is not held to them).
    ///
    /// Throws ``MediaError/Code/stageFinished`` once the run has ended. The returned id indexes
    /// ``MediaGraph/Progress/branches``.
    @discardableResult
    public func addBranch(
        _ name: String? = nil, source: sending any MediaSource, stages: sending [any MediaStage] = []
    ) throws(MediaError) -> MediaGraph.BranchID {
        try run.addBranch(name, source: source, stages: stages)
    }

    /// Ends a branch of the running graph, from any thread, and returns at once: its source is not
    /// read further, its stages drain (an encoder's delayed frames still go out), and its tracks end in
    /// every sink it feeds; a sink whose tracks have all ended finishes. The other branches go on.
    public func removeBranch(_ branch: MediaGraph.BranchID) { run.removeBranch(branch.index) }
}
