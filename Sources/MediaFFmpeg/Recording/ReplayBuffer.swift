import DequeModule
public import MediaCore

/// Keeps the last seconds of encoded audio and video in memory and writes them to a file on demand:
/// OBS's replay buffer, or a dash camera's "save the last minute".
///
/// ```swift
/// let replay = ReplayBuffer(duration: .seconds(30), maxBytes: 64 << 20)
/// graph.addSink(replay, tracks: [video, audio])      // the graph runs on …
/// let clip = try replay.saveClip(to: "goal.mp4")     // … from any thread, whenever asked
/// print(clip.duration)
/// ```
///
/// The contract:
/// - **Input**: as ``ContainerMuxer``'s, tracks interleaved by decode time (a ``/MediaCore/MediaGraph``
///   delivers them so). Samples are kept as they are (no copy: a sample's bytes are shared).
/// - **What is kept**: whole groups of pictures. After each sample, the oldest group of pictures (every
///   sample before the second video keyframe) goes while what is left from that keyframe still spans
///   `duration` (to the latest end), or while the buffer holds more than `maxBytes`. So the buffer
///   always starts at a video keyframe and holds at least `duration` (once that much has come) plus
///   less than one group of pictures, within `maxBytes`. Audio samples before that keyframe go too,
///   but those that cover its time. Without video, audio goes a sample at a time on the same terms.
/// - **A clip** (``saveClip(to:format:last:)``, from any thread, also while the graph runs and after it
///   has ended): the samples held at the moment of the call (or, with `last`, from the last keyframe
///   at or before that much before the end), written with ``ContainerMuxer`` on the calling thread;
///   the buffer goes on filling meanwhile. Its video starts at a keyframe; its audio is every packet
///   from the one covering that keyframe's time to the end, with no gap.
/// - ``finish()`` keeps the buffer, so that a clip can still be saved after the run.
public final class ReplayBuffer: MultiTrackSink, @unchecked Sendable {
    // Sendable by construction: `held`, `bytes`, `formats` and `videoTrack` are read and written only
    // between `mutex.lock()` and `mutex.unlock()`; the graph's sink thread writes, any thread saves a
    // clip from a copy taken under the lock (MediaSample is Sendable and copy-on-write).

    /// A clip written.
    public struct Clip: Sendable, Hashable {
        /// The file written.
        public var path: String
        /// The presentation time of its first video sample (of its first sample without video).
        public var start: MediaTime
        /// From its start to the end of its last sample.
        public var duration: MediaTime
        /// Samples written, all tracks.
        public var samples: Int
    }

    /// What the buffer holds now.
    public struct Statistics: Sendable, Hashable {
        /// Samples held.
        public var samples = 0
        /// Their bytes.
        public var bytes = 0
        /// From the first sample's presentation time to the last one's end.
        public var duration = MediaTime.zero
        /// Samples dropped from the front so far.
        public var dropped = 0
    }

    /// How long a span the buffer keeps (plus less than one group of pictures).
    public let duration: Duration
    /// The most bytes of samples it keeps.
    public let maxBytes: Int

    private let mutex = PthreadMutex()
    private var held = Deque<(sample: MediaSample, track: Int)>()
    private var bytes = 0
    private var dropped = 0
    private var formats: [MediaFormat?] = []
    private var firstSamples: [MediaSample?] = []
    private var videoTrack: Int?

    /// A buffer of the last `duration` (default 30 s), at most `maxBytes` (default 256 MiB).
    public init(duration: Duration = .seconds(30), maxBytes: Int = 256 << 20) {
        self.duration = duration
        self.maxBytes = maxBytes
    }

    /// `ReplayBuffer(30 s)`.
    public var name: String { "ReplayBuffer(\(duration))" }

    /// Takes the tracks' formats.
    public func begin(tracks formats: [MediaFormat?]) throws {
        mutex.lock()
        defer { mutex.unlock() }
        self.formats = formats
        videoTrack = formats.firstIndex { $0?.video != nil }
    }

    /// Keeps the tracks' first samples too: a clip's muxer takes its time bases from them.
    public func begin(firstSamples: [MediaSample?]) throws {
        try begin(tracks: firstSamples.map { $0?.format })
        mutex.lock()
        self.firstSamples = firstSamples
        mutex.unlock()
    }

    /// Adds `sample`, then drops the oldest group of pictures while the buffer is over its limits.
    public func write(_ sample: MediaSample, track: Int) throws {
        mutex.lock()
        defer { mutex.unlock() }
        held.append((sample, track))
        bytes += sample.byteCount
        while let cut = nextCut() {
            for _ in 0..<cut {
                let gone = held.removeFirst()
                bytes -= gone.sample.byteCount
                dropped += 1
            }
        }
    }

    /// Keeps the buffer (a clip can still be saved).
    public func finish() throws {}

    /// What the buffer holds now.
    public var statistics: Statistics {
        mutex.lock()
        defer { mutex.unlock() }
        return Statistics(samples: held.count, bytes: bytes, duration: span(held), dropped: dropped)
    }

    /// Writes what the buffer holds (with `last`, only from the last keyframe at or before that long
    /// before its end) to `path`, in `format` (default: from the extension), on the calling thread.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` when the buffer holds nothing yet; the
    ///   errors of ``ContainerMuxer`` writing the file.
    @discardableResult
    public func saveClip(to path: String, format: ContainerFormat? = nil, last: Duration? = nil) throws -> Clip {
        mutex.lock()
        // Not copied when empty: copying an empty Deque writes the count of the Swift runtime's shared
        // empty-array storage, which ThreadSanitizer then reports against any thread reading an empty array.
        guard !held.isEmpty, !firstSamples.isEmpty else {
            mutex.unlock()
            throw MediaError(.invalidArgument, "ReplayBuffer: nothing to save yet")
        }
        var samples = Array(held)
        let firsts = firstSamples
        let video = videoTrack
        mutex.unlock()
        if let last, let trimmed = Self.suffix(samples, last: last, videoTrack: video) { samples = trimmed }
        let start =
            samples.first { $0.track == video }?.sample.timing.presentationTime
            ?? samples[0].sample.timing.presentationTime
        // Audio from the packet that covers the first keyframe's time: the earlier ones (kept so that
        // this one is there) are left out.
        samples = samples.filter { item in
            guard item.track != video, start.isNumeric else { return true }
            let timing = item.sample.timing
            let end = timing.duration.isNumeric ? timing.presentationTime + timing.duration : timing.presentationTime
            return end > start
        }
        var options = ContainerMuxer.Options()
        options.fragmented = false
        let muxer = try ContainerMuxer(path: path, format: format, options: options)
        do {
            try muxer.begin(firstSamples: firsts)
            for item in samples { try muxer.write(item.sample, track: item.track) }
            try muxer.finish()
        } catch {
            try? muxer.finish()
            throw error
        }
        return Clip(
            path: path, start: start, duration: span(samples, from: start), samples: samples.count)
    }

    /// How many samples to drop from the front: those before the second video keyframe (the oldest
    /// group of pictures), when the buffer holds more than `maxBytes`, or when what is left from that
    /// keyframe still spans `duration`; without video, the oldest sample on the same terms. `nil` when
    /// nothing is to go.
    private func nextCut() -> Int? {
        guard held.count > 1 else { return nil }
        let newest = held.map { Self.end(of: $0.sample) }.filter(\.isNumeric).max()
        func spansEnough(from time: MediaTime) -> Bool {
            guard let newest, time.isNumeric, let span = (newest - time).seconds else { return false }
            return span >= Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        guard let video = videoTrack else {
            return bytes > maxBytes || spansEnough(from: held[1].sample.timing.presentationTime) ? 1 : nil
        }
        var keyframes = 0
        for (index, item) in held.enumerated() where item.track == video && item.sample.flags.contains(.keyframe) {
            keyframes += 1
            guard keyframes == 2 else { continue }
            let keyTime = item.sample.timing.presentationTime
            guard bytes > maxBytes || spansEnough(from: keyTime) else { return nil }
            // Keep the audio samples that cover the keyframe's time: they are just before it.
            var cut = index
            while cut > 0, held[cut - 1].track != video, Self.end(of: held[cut - 1].sample) > keyTime { cut -= 1 }
            return cut > 0 ? cut : nil
        }
        return nil
    }

    private static func end(of sample: MediaSample) -> MediaTime {
        let timing = sample.timing
        return timing.duration.isNumeric ? timing.presentationTime + timing.duration : timing.presentationTime
    }

    /// From the first presentation time (or `start`) to the latest end. A loop, not arrays: see
    /// ``saveClip(to:format:last:)`` on copying an empty Deque.
    private func span(
        _ items: some Collection<(sample: MediaSample, track: Int)>, from start: MediaTime? = nil
    ) -> MediaTime {
        var first = start
        var last: MediaTime?
        for item in items {
            let time = item.sample.timing.presentationTime
            if start == nil, time.isNumeric, first.map({ time < $0 }) ?? true { first = time }
            let end = Self.end(of: item.sample)
            if end.isNumeric, last.map({ end > $0 }) ?? true { last = end }
        }
        guard let first else { return .zero }
        return (last ?? first) - first
    }

    /// The samples from the last video keyframe at or before `last` before their end.
    private static func suffix(
        _ samples: [(sample: MediaSample, track: Int)], last: Duration, videoTrack: Int?
    ) -> [(sample: MediaSample, track: Int)]? {
        guard let end = samples.map({ Self.end(of: $0.sample) }).filter(\.isNumeric).max() else { return nil }
        let microseconds = last.components.seconds * 1_000_000 + last.components.attoseconds / 1_000_000_000_000
        let from = end - MediaTime(value: microseconds, timescale: 1_000_000)
        let starts = samples.indices.filter { index in
            let item = samples[index]
            return (videoTrack == nil || item.track == videoTrack) && item.sample.flags.contains(.keyframe)
                && item.sample.timing.presentationTime <= from
        }
        guard var start: Int = starts.last else { return nil }
        let keyTime = samples[start].sample.timing.presentationTime
        while start > 0, samples[start - 1].track != videoTrack, Self.end(of: samples[start - 1].sample) > keyTime {
            start -= 1
        }
        return Array(samples[start...])
    }
}
