/// A sink that queues raw frames and presents each at its presentation time on a clock of its own
/// choosing: AVFoundation's `AVSampleBufferDisplayLayer` (`enqueue`, `isReadyForMoreMediaData`,
/// `flush`), a GStreamer video sink with `sync=true` behind a queue.
///
/// A player writes frames ahead of their time and uses ``isReadyForMoreMediaData`` for back-pressure
/// (a write never blocks: a full queue would push out its oldest frame), and ``flush()`` at a seek.
/// `MediaDisplay`'s `VideoPreviewSink` is one; `MediaPipeline`'s `MediaPlayer` takes any.
public protocol PresentingSink: MediaSink, Sendable {
    /// Whether the queue has room for another frame now.
    var isReadyForMoreMediaData: Bool { get }
    /// Drops the frames queued and not yet presented (a seek): the next frame written is the next shown.
    func flush()
}
