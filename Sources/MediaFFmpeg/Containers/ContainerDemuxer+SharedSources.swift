public import MediaCore

extension ContainerDemuxer {
    /// Sources of several streams of one demuxer that may each be read on a thread of its own: the
    /// branches of a threaded ``/MediaCore/MediaGraph`` fed by one network input, which can be opened
    /// only once (a live URL).
    ///
    /// ```swift
    /// let demuxer = try ContainerDemuxer(url: "rtsp://127.0.0.1:8554/cam")
    /// let indices = demuxer.streams.filter { $0.isVideo || $0.isAudio }.map(\.index)
    /// for source in try ContainerDemuxer.sharedSources(demuxer, streams: indices) { graph.addBranch(source: source) }
    /// ```
    ///
    /// Each is a ``StreamSource`` behind one lock the sources share, so that only one thread at a time
    /// reads the demuxer; a source waiting for its stream's next packet queues the other streams'
    /// packets, as ``StreamSource`` does (a stream whose source is not read fills its queue and ends the
    /// run with ``/MediaCore/MediaError/Code/queueFull``).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for an index the demuxer does not have.
    public static func sharedSources(_ demuxer: sending ContainerDemuxer, streams indices: [Int]) throws(MediaError)
        -> [SharedStreamSource]
    {
        let lock = SharedStreamSource.Lock()
        var sources: [SharedStreamSource] = []
        for index in indices {
            sources.append(SharedStreamSource(try demuxer.source(stream: index), lock: lock))
        }
        return sources
    }

    /// One stream of ``sharedSources(_:streams:)``: a ``StreamSource`` read under the lock its siblings
    /// share.
    public final class SharedStreamSource: MediaSource, @unchecked Sendable {
        // Sendable by construction: `source`, and through it the demuxer all siblings share, is touched
        // only between `lock.mutex.lock()` and `unlock()` (in `next()`, `name` and `deinit`), so no two
        // threads use the demuxer at once; the demuxer is not used by anyone else, as
        // `sharedSources(_:streams:)` took it as `sending`.
        final class Lock: @unchecked Sendable {
            // A mutex is made to be shared between threads.
            let mutex = PthreadMutex()
        }

        private var source: StreamSource?
        private let lock: Lock
        /// The stream, as the demuxer listed it.
        public let stream: ContainerDemuxer.Stream

        init(_ source: StreamSource, lock: Lock) {
            self.source = source
            self.lock = lock
            stream = source.stream
        }

        deinit {
            // The inner source deselects its stream in the shared demuxer (and the last one frees it).
            lock.mutex.lock()
            source = nil
            lock.mutex.unlock()
        }

        /// `ContainerDemuxer stream N`.
        public var name: String { "ContainerDemuxer stream \(stream.index)" }

        /// The stream's next sample (see ``StreamSource/next()``), or `nil` at the end of the input.
        public func next() throws(MediaError) -> MediaSample? {
            lock.mutex.lock()
            defer { lock.mutex.unlock() }
            return try source?.next()
        }
    }
}
