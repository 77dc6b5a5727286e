import DequeModule

/// In front of a sink that joins a graph while it runs (``MediaGraphRun/addSink(_:tracks:startsAtZero:onEnd:)``):
/// decides the moment the sink's recording starts, and lets through, track by track, what comes from
/// that moment on, so that a file started mid-stream begins like one started with the run.
///
/// - The start: once every track has either ended, delivered an audio sample, or delivered a video
///   keyframe, the start is the latest of the video tracks' first keyframes (decode time), or, with no
///   video, the latest of the audio tracks' first samples. Until then samples wait here (video from its
///   first keyframe on; audio at most `capacity` samples, the oldest dropped first: they are older than
///   any start a keyframe still to come can give).
/// - From the start: a video track begins at its first keyframe at or after the start (earlier
///   pictures could not be decoded); an audio track at its first sample that starts at or after it,
///   whole (a compressed packet cannot be cut). Nothing is delayed past that.
/// - Times: with `rebase`, the start is subtracted from every sample's presentation and decode time,
///   at the track's own timescale, so the file's timeline begins at zero (what `AVAssetWriter`'s
///   `startSession(atSourceTime:)` does); without it the run's times pass unchanged.
///
/// Samples it drops before the start are counted in ``skipped``.
struct JoinGate {
    private enum Track {
        /// Nothing admissible yet.
        case waiting
        /// Holding samples from the first admissible one, whose time (and kind) is recorded.
        case holding(first: MediaTime, isVideo: Bool)
        /// Ended before the start was decided.
        case ended
    }

    private let rebase: Bool
    private let capacity: Int
    private var tracks: [Track]
    private var held: [Deque<MediaSample>]
    /// Whether each track has passed its first sample after the start (a video track: a keyframe).
    private var started: [Bool]
    /// The start, once decided.
    private(set) var start: MediaTime?
    /// Samples dropped because they came before the start (or before a video track's first keyframe).
    private(set) var skipped = 0

    init(trackCount: Int, rebase: Bool, capacity: Int) {
        self.rebase = rebase
        self.capacity = max(1, capacity)
        tracks = Array(repeating: .waiting, count: trackCount)
        held = Array(repeating: Deque(), count: trackCount)
        started = Array(repeating: false, count: trackCount)
    }

    /// Takes `sample` of `track`; hands on (to `release`) what may pass now, in the order received per track.
    mutating func receive(
        _ sample: MediaSample, track: Int, release: (MediaSample, Int) throws -> Void
    ) throws {
        guard let start else { return try hold(sample, track: track, release: release) }
        try pass(sample, track: track, start: start, release: release)
    }

    /// Marks `track` ended: the start no longer waits for it.
    mutating func end(track: Int, release: (MediaSample, Int) throws -> Void) throws {
        guard start == nil else { return }
        if case .waiting = tracks[track] { tracks[track] = .ended }
        try decideIfReady(release: release, force: false)
    }

    /// At the end of the sink: decides the start from what is held, if it was not decided, and hands it on.
    mutating func flush(release: (MediaSample, Int) throws -> Void) throws {
        guard start == nil else { return }
        try decideIfReady(release: release, force: true)
    }

    private mutating func hold(_ sample: MediaSample, track: Int, release: (MediaSample, Int) throws -> Void) throws {
        let isVideo = sample.format.isVideo
        switch tracks[track] {
        case .waiting, .ended:
            guard !isVideo || sample.flags.contains(.keyframe) else {
                skipped += 1
                return
            }
            tracks[track] = .holding(first: sample.timing.effectiveDecodeTime, isVideo: isVideo)
            held[track].append(sample)
        case .holding:
            held[track].append(sample)
            if !isVideo && held[track].count > capacity {
                held[track].removeFirst()
                if let first = held[track].first {
                    tracks[track] = .holding(first: first.timing.effectiveDecodeTime, isVideo: false)
                }
                skipped += 1
            }
        }
        try decideIfReady(release: release, force: false)
    }

    /// Decides the start once every track is holding or ended (or now, with `force`), then releases
    /// what is held from it on.
    private mutating func decideIfReady(release: (MediaSample, Int) throws -> Void, force: Bool) throws {
        var video: MediaTime?
        var audio: MediaTime?
        for track in tracks {
            switch track {
            case .waiting: if !force { return }
            case .ended: continue
            case .holding(let first, let isVideo):
                guard first.isNumeric else { continue }
                if isVideo {
                    if video.map({ $0 < first }) ?? true { video = first }
                } else if audio.map({ $0 < first }) ?? true {
                    audio = first
                }
            }
        }
        guard let decided = video ?? audio else {
            if force { skipped += held.reduce(0) { $0 + $1.count } }
            return
        }
        start = decided
        for track in held.indices {
            while let sample = held[track].popFirst() {
                try pass(sample, track: track, start: decided, release: release)
            }
        }
    }

    /// Hands on `sample` if its track has started or starts with it; drops it otherwise.
    private mutating func pass(
        _ sample: MediaSample, track: Int, start: MediaTime, release: (MediaSample, Int) throws -> Void
    ) throws {
        if !started[track] {
            let time = sample.timing.effectiveDecodeTime
            let isBefore = time.isNumeric && time < start
            guard !isBefore, !sample.format.isVideo || sample.flags.contains(.keyframe) else {
                skipped += 1
                return
            }
            started[track] = true
        }
        guard rebase else { return try release(sample, track) }
        var moved = sample
        var timing = moved.timing
        let offset = start.converted(to: timing.presentationTime.timescale, rounding: .down)
        if timing.presentationTime.isNumeric { timing.presentationTime = timing.presentationTime - offset }
        if timing.decodeTime.isNumeric {
            timing.decodeTime = timing.decodeTime - start.converted(to: timing.decodeTime.timescale, rounding: .down)
        }
        moved.timing = timing
        try release(moved, track)
    }
}

extension MediaFormat {
    /// Whether this is a video format (raw or compressed).
    var isVideo: Bool {
        if case .video = self { return true }
        return false
    }
}
