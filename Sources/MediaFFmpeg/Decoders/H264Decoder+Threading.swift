extension H264Decoder {
    /// How an ``H264Decoder`` spreads decoding over the CPUs: GStreamer's `avdec_h264` `thread-type`
    /// and `max-threads`, or `ffmpeg -threads`, with one more way.
    public enum Threading: Sendable, Hashable {
        /// One FFmpeg decoder with frame threads (FFmpeg's automatic count: one more than the CPUs), as
        /// the ffmpeg CLI and `avdec_h264` decode. Memory: a few pictures.
        case frames
        /// Closed groups of pictures decoded at once, one per worker thread.
        ///
        /// The stream is cut before each access unit that holds an IDR picture: what follows an IDR
        /// refers to nothing before it, so each group decodes on its own, with a single-threaded FFmpeg
        /// decoder per worker, and its frames are emitted after the previous group's. Workers do not
        /// wait on each other picture by picture as frame threads do, so on a machine whose cores frame
        /// threads leave partly idle this is faster (see `Benchmarks/README.md`). The stream's last group
        /// is decoded with frame threads, so that its end does not wait on one core. Up to `workers + 1`
        /// groups are in flight (one more than the workers, so that a worker that finished a group
        /// ahead of the oldest one need not wait), and their decoded pictures are held until their
        /// turn: for `bufferBytes` of them, a group may be `bufferBytes / ((workers + 1) × picture
        /// size)` access units long (64 at 720p with the defaults on 2 CPUs, 28 at 1080p); the first
        /// group longer than that (a stream with few IDRs) switches the rest of the stream to ``frames``.
        ///
        /// An undamaged stream gives the same frames, times and counts as ``frames``. In a damaged one,
        /// concealment can differ: a decoder that starts at a group has no earlier pictures to conceal
        /// a broken IDR with. A stream using `no_output_of_prior_pics_flag` (an IDR that discards the
        /// pictures not yet shown, which x264 and Apple's encoders never set) gives those pictures too.
        ///
        /// - Parameters:
        ///   - workers: the threads (default: the CPUs this process may use).
        ///   - bufferBytes: how much decoded picture data may wait (default 256 MiB).
        case groupsOfPictures(workers: Int = ParallelAACEncoder.availableThreads, bufferBytes: Int = 256 << 20)
    }
}
