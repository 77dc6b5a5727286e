import Glibc
public import MediaCore

/// Records encoded tracks into a folder of files that rotate by duration or size, each cut at a video
/// keyframe: GStreamer's `splitmuxsink`, or ffmpeg's `-f segment`, with an index of what was written.
///
/// ```swift
/// var options = SegmentedRecorder.Options()
/// options.segmentDuration = .seconds(6)
/// options.retention = .files(100)
/// let recorder = try SegmentedRecorder(directory: "rec/cam1", options: options) { segment in
///     print("closed \(segment.file): \(segment.duration) s from \(segment.start)")
/// }
/// graph.addSink(recorder, tracks: [video, audio])
/// ```
///
/// The contract:
/// - **Input**: as ``ContainerMuxer``'s (AAC, H.264 and the codecs it takes), tracks interleaved by
///   decode time, as a ``/MediaCore/MediaGraph`` delivers them.
/// - **Cuts**: a new segment starts at the first video keyframe whose presentation time is at least
///   ``Options/segmentDuration`` after the segment's start, or, with ``Options/maxSegmentBytes``, the
///   first keyframe after the file has grown past that size. Every sample after the keyframe in decode
///   order goes to the new segment, so each segment begins with a keyframe and no sample is written
///   twice or lost. Without a video track, audio samples are the cut points. The first sample
///   flagged ``/MediaCore/MediaSample/Flags/discontinuity`` after a gap (a ``ReconnectingInput``'s drop:
///   it flags each track's first sample after one) starts a segment: the one before ends with its last
///   sample, so that no segment's duration holds the gap.
/// - **Files**: `segment-00000.ts` … in ``Options/format`` (MPEG-TS, fragmented MP4, Matroska), each a
///   valid file on its own once closed. MPEG-TS and Matroska segments keep the samples' own timestamps
///   (so a join has no gap), all shifted alike when the first decode time is negative (B-frames) so that
///   none is negative; a fragmented MP4 starts at zero (libavformat's fragmented writer shifts it). The
///   index gives the samples' times unshifted. A file
///   still open when the process dies is readable up to what was written (``ContainerMuxer/Options/flushInterval``,
///   a quarter second): MPEG-TS to a quarter second of its end, fragmented MP4 to its last fragment,
///   Matroska to its last cluster (closed every second).
/// - **Index**, rewritten (atomically, by rename) after every closed segment: `index.json` (every
///   segment kept: file, start, exact duration, bytes, and `"complete"` once the recording has
///   finished) and `index.m3u8`, an HLS playlist of the kept segments (`EXT-X-PLAYLIST-TYPE:EVENT`
///   while recording, `VOD` with `EXT-X-ENDLIST` after ``finish()``). A segment's duration is the
///   next segment's start minus its own, the last one's the end of its last sample: exact, not
///   rounded to a frame.
/// - **Retention** (``Options/retention``): after each closed segment, the oldest files beyond N
///   files, a total duration or a total size are deleted, and drop out of the index (the playlist's
///   `EXT-X-MEDIA-SEQUENCE` counts them).
/// - **Events**: `onSegment` is called (on the writing thread) with each closed ``Segment``.
///
/// Errors: those of ``ContainerMuxer`` for a segment's file, ``/MediaCore/MediaError/Code/io`` for the
/// folder or an index that cannot be written, each naming the path.
public final class SegmentedRecorder: MultiTrackSink {
    /// How the recording is cut, written and kept.
    public struct Options: Sendable, Hashable {
        /// How long a segment should last (default 6 s); it ends at the first keyframe at or after this.
        public var segmentDuration: Duration = .seconds(6)
        /// A size after which the next keyframe starts a new segment, whatever its duration (default
        /// none).
        public var maxSegmentBytes: Int64?
        /// The container of every segment: ``ContainerFormat/mpegTS`` (default), ``ContainerFormat/mp4``
        /// (written fragmented) or ``ContainerFormat/matroska``.
        public var format: ContainerFormat = .mpegTS
        /// Which closed segments are kept (default all).
        public var retention: Retention = .all

        /// The defaults: 6-s MPEG-TS segments, all kept.
        public init() {}
    }

    /// Which closed segments a ``SegmentedRecorder`` keeps; the older ones are deleted.
    public enum Retention: Sendable, Hashable {
        /// Every segment.
        case all
        /// The last `count` segments.
        case files(Int)
        /// The newest segments that together last at most this long.
        case duration(Duration)
        /// The newest segments that together hold at most this many bytes.
        case bytes(Int64)
    }

    /// One closed segment.
    public struct Segment: Sendable, Hashable {
        /// Its number, from 0.
        public var index: Int
        /// Its file's name inside the folder (`segment-00003.ts`).
        public var file: String
        /// The presentation time of its first sample (its cut keyframe's, after the first).
        public var start: MediaTime
        /// How long it lasts: the next segment's start minus its own (for the last, its last sample's
        /// end minus its start).
        public var duration: MediaTime
        /// Its size in bytes.
        public var bytes: Int64
        /// Whether it starts after a gap in the input (a reconnection: its first keyframe carried
        /// ``/MediaCore/MediaSample/Flags/discontinuity``); the playlist puts `#EXT-X-DISCONTINUITY`
        /// before it.
        public var followsGap = false
    }

    /// The folder the segments are written to.
    public let directory: String
    /// The options given.
    public let options: Options
    /// The segments closed and kept, oldest first.
    public private(set) var segments: [Segment] = []
    /// Segments deleted by the retention so far.
    public private(set) var deletedSegments = 0

    private let onSegment: (@Sendable (Segment) -> Void)?
    private var formats: [MediaFormat?] = []
    private var videoTrack: Int?
    private var current: (muxer: ContainerMuxer, index: Int, file: String, start: MediaTime)?
    private var currentFollowsGap = false
    private var segmentHasSamples = false
    /// The tracks whose first sample after the current segment's gap has come.
    private var gapTracks: Set<Int> = []
    private var currentEnd = MediaTime.invalid
    private var nextIndex = 0
    /// Added to every sample's times in the files: what makes the earliest decode time zero when it is
    /// negative (B-frames), the same for every segment, so that libavformat does not shift the first
    /// segment alone (`avoid_negative_ts`) and open a gap or an overlap at its join.
    private var shift = MediaTime.zero
    private var finished = false

    /// A recorder writing into `directory` (made if missing).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/io`` when the folder cannot be made;
    ///   ``/MediaCore/MediaError/Code/invalidArgument`` for a format other than MPEG-TS, MP4 and Matroska, or
    ///   a duration that is not positive.
    public init(
        directory: String, options: Options = Options(), onSegment: (@Sendable (Segment) -> Void)? = nil
    ) throws(MediaError) {
        guard [ContainerFormat.mpegTS, .mp4, .matroska].contains(options.format) else {
            throw MediaError(
                .invalidArgument,
                "SegmentedRecorder writes mpegts, mp4 or matroska segments, not \(options.format.name)")
        }
        guard options.segmentDuration > .zero else {
            throw MediaError(
                .invalidArgument,
                "SegmentedRecorder: a segment duration must be positive, not \(options.segmentDuration)")
        }
        self.directory = directory
        self.options = options
        self.onSegment = onSegment
        try SegmentIndexFiles.makeDirectory(directory)
    }

    /// `SegmentedRecorder(<folder>)`.
    public var name: String { "SegmentedRecorder(\(directory))" }

    /// Takes the tracks' formats; the first segment opens with the first sample.
    public func begin(tracks formats: [MediaFormat?]) throws {
        self.formats = formats
        videoTrack = formats.firstIndex { $0?.video != nil }
    }

    /// Takes the tracks' formats and, from their first samples, the one shift every segment's times get
    /// (see ``write(_:track:)``).
    public func begin(firstSamples: [MediaSample?]) throws {
        let earliest = firstSamples.compactMap { $0?.timing.effectiveDecodeTime }.filter(\.isValid).min()
        if let earliest, earliest < .zero { shift = .zero - earliest }
        try begin(tracks: firstSamples.map { $0?.format })
    }

    /// Writes `sample` into the open segment, first closing it and opening the next when `sample` is a
    /// cut point that is due.
    public func write(_ sample: MediaSample, track: Int) throws {
        let time =
            sample.timing.presentationTime.isValid ? sample.timing.presentationTime : sample.timing.effectiveDecodeTime
        let cuts = videoTrack == nil || videoTrack == track
        var afterGap = false
        if sample.flags.contains(.discontinuity), current != nil, segmentHasSamples {
            if currentFollowsGap, !gapTracks.contains(track) {
                gapTracks.insert(track)  // the same gap, seen on another track
            } else {
                // A reconnection's gap: the segment ends with its last sample, the next starts after it.
                try close(endingAt: currentEnd)
                afterGap = true
                gapTracks = [track]
            }
        }
        if let open = current, cuts, sample.flags.contains(.keyframe), time.isValid, isDue(open, at: time) {
            try close(endingAt: time)
        }
        if current == nil { try open(startingAt: time, afterGap: afterGap) }
        segmentHasSamples = true
        var shifted = sample
        if shift != .zero {
            var timing = sample.timing
            if timing.presentationTime.isValid { timing.presentationTime = timing.presentationTime + shift }
            if timing.decodeTime.isValid { timing.decodeTime = timing.decodeTime + shift }
            shifted.timing = timing
        }
        try current?.muxer.write(shifted, track: track)
        if time.isValid {
            let end = sample.timing.duration.isValid ? time + sample.timing.duration : time
            if !currentEnd.isValid || end > currentEnd { currentEnd = end }
        }
    }

    /// Closes the last segment and writes the final index (a VOD playlist). Idempotent.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        if current != nil { try close(endingAt: currentEnd) }
        try writeIndex(complete: true)
    }

    /// Whether the open segment has lasted (or grown) enough for a keyframe at `time` to start another.
    private func isDue(_ open: (muxer: ContainerMuxer, index: Int, file: String, start: MediaTime), at time: MediaTime)
        -> Bool
    {
        if let limit = options.maxSegmentBytes, open.muxer.bytesWritten >= limit { return true }
        guard open.start.isValid else { return false }
        return (time - open.start).seconds.map { $0 >= Self.seconds(options.segmentDuration) } ?? false
    }

    private func open(startingAt start: MediaTime, afterGap: Bool) throws {
        let extensionName = options.format == .mpegTS ? "ts" : options.format == .mp4 ? "mp4" : "mkv"
        let number = String(nextIndex)
        let file = "segment-" + String(repeating: "0", count: max(0, 5 - number.count)) + number + "." + extensionName
        var muxerOptions = ContainerMuxer.Options()
        muxerOptions.fragmented = options.format == .mp4
        muxerOptions.flushInterval = .milliseconds(250)  // the open segment, at a crash, holds all but 0.25 s
        let muxer = try ContainerMuxer(path: directory + "/" + file, format: options.format, options: muxerOptions)
        try muxer.begin(tracks: formats)
        current = (muxer, nextIndex, file, start)
        currentFollowsGap = afterGap
        segmentHasSamples = false
        currentEnd = .invalid
        nextIndex += 1
    }

    private func close(endingAt end: MediaTime) throws {
        guard let open = current else { return }
        current = nil
        try open.muxer.finish()
        let duration = end.isValid && open.start.isValid ? end - open.start : .zero
        let segment = Segment(
            index: open.index, file: open.file, start: open.start, duration: duration, bytes: open.muxer.bytesWritten,
            followsGap: currentFollowsGap)
        segments.append(segment)
        applyRetention()
        try writeIndex(complete: false)
        onSegment?(segment)
    }

    /// Deletes the oldest segments beyond the retention.
    private func applyRetention() {
        while segments.count > 1, isOverRetention() {
            let oldest = segments.removeFirst()
            unlink(directory + "/" + oldest.file)
            deletedSegments += 1
        }
    }

    private func isOverRetention() -> Bool {
        switch options.retention {
        case .all: return false
        case .files(let count): return segments.count > max(1, count)
        case .duration(let limit):
            let total = segments.reduce(0.0) { $0 + ($1.duration.seconds ?? 0) }
            return total > Self.seconds(limit)
        case .bytes(let limit): return segments.reduce(Int64(0)) { $0 + $1.bytes } > limit
        }
    }

    private func writeIndex(complete: Bool) throws(MediaError) {
        try SegmentIndexFiles.write(
            segments: segments, deleted: deletedSegments, complete: complete, into: directory)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

@available(*, unavailable) extension SegmentedRecorder: Sendable {}
