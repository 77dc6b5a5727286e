public import MediaCore

extension LiveStreamSink {
    /// The control the sink's ``AdaptiveBitRate`` policy writes, `nil` when adaptive bit rate is off.
    /// Its ``/MediaCore/BitRateControl/bitRate`` is the video target now (read it from any thread: keep a reference
    /// before the graph takes the sink).
    public var bitRateControl: BitRateControl? { bitRateDriver?.settings.control }
}
