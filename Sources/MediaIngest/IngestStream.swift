public import MediaCore
public import MediaFormats

/// One stream a publisher sends to an ``IngestServer``: what it is (its application and key, its
/// formats and metadata) and a source per track for the graph that records, transcodes or relays it.
/// An RTMP publisher's or an SRT caller's: both look the same to the graph.
///
/// ```swift
/// let server = try IngestServer(rtmp: .init(port: 1935)) { stream in
///     var graph = MediaGraph()
///     var tracks: [MediaGraph.BranchID] = []
///     if let video = stream.videoSource() { tracks.append(graph.addBranch("video", source: video)) }
///     if let audio = stream.audioSource() { tracks.append(graph.addBranch("audio", source: audio)) }
///     graph.addSink(try ContainerMuxer(path: "\(stream.key).ts", format: .mpegts), tracks: tracks)
///     _ = try? graph.runThreaded()
/// }
/// ```
///
/// The server hands the stream over once it knows its tracks: every track `onMetaData` announces
/// (`audiocodecid`, `videocodecid`) has its sequence header, or, without them, at the first coded
/// frame. Samples are as ``/MediaFormats/FLVSampleReader`` makes them: AAC and H.264 (AVCC), times in
/// the publisher's milliseconds. An SRT stream is handed over once ``/MediaFFmpeg/ContainerDemuxer``
/// knows its MPEG-TS's streams (its first seconds); its samples are the demuxer's (AAC, H.264 in AVCC,
/// or any codec it lists, such as HEVC or Opus), times in 90 kHz. A source hands out every sample from the first; it ends when the
/// publisher unpublishes or disconnects, and throws when the stream failed (a malformed message, a
/// graph that does not keep up and lets more than ``IngestServer/Limits/bufferedBytes`` queue up: each
/// a ``/MediaCore/MediaError`` saying so). Make the sources in the handler: a track without a source
/// when the handler returns is dropped.
public final class IngestStream: Sendable {
    /// How a stream reaches the server.
    public enum Transport: String, Sendable, Hashable {
        /// An RTMP publisher (TCP).
        case rtmp
        /// An SRT caller sending MPEG-TS (UDP).
        case srt
    }

    /// The application the publisher connected to (`live` in `rtmp://host/live/key`, or in SRT's stream
    /// ID `live/key`; empty for a stream ID without `/`).
    public let app: String
    /// The stream key it published (`key` in `rtmp://host/live/key`; for SRT, the stream ID after its
    /// last `/`).
    public let key: String
    /// Whether it came over RTMP or SRT.
    public let transport: Transport
    /// Where the publisher connects from (`127.0.0.1:53412`).
    public let remoteAddress: String
    /// `onMetaData`'s table, as the publisher sent it (empty when it sent none, and for SRT).
    public let metadata: [AMF0Property]
    /// The audio samples' format, when the stream has audio.
    public let audioFormat: AudioFormat?
    /// The video samples' format, when the stream has video.
    public let videoFormat: VideoFormat?
    let queue: IngestQueue

    init(
        app: String, key: String, remoteAddress: String, metadata: [AMF0Property], audioFormat: AudioFormat?,
        videoFormat: VideoFormat?, queue: IngestQueue, transport: Transport = .rtmp
    ) {
        self.app = app
        self.key = key
        self.transport = transport
        self.remoteAddress = remoteAddress
        self.metadata = metadata
        self.audioFormat = audioFormat
        self.videoFormat = videoFormat
        self.queue = queue
    }

    /// What a stream has received so far.
    public struct Statistics: Sendable, Hashable {
        /// Audio samples (AAC packets) received.
        public var audioSamples = 0
        /// Video samples (H.264 access units) received.
        public var videoSamples = 0
        /// Bytes of samples received.
        public var bytes: Int64 = 0
        /// Bytes of samples queued now, not yet taken by the graph.
        public var queuedBytes = 0
        /// Audio samples queued now.
        public var queuedAudioSamples = 0
        /// Video samples queued now.
        public var queuedVideoSamples = 0
        /// Whether the publisher has ended (or the stream failed).
        public var hasEnded = false
    }

    /// What the stream has received so far. Counted from the stream's first sample, also before the
    /// handler was called.
    public var statistics: Statistics { queue.statistics }

    /// The stream's name: its key.
    public var name: String { key }

    /// The audio track's samples, `nil` when the stream has no audio.
    public func audioSource() -> (any MediaSource)? {
        guard audioFormat != nil else { return nil }
        queue.select(.audio)
        return Source(stream: self, track: .audio)
    }

    /// The video track's samples, `nil` when the stream has no video.
    public func videoSource() -> (any MediaSource)? {
        guard videoFormat != nil else { return nil }
        queue.select(.video)
        return Source(stream: self, track: .video)
    }

    /// One track of the stream, as a source.
    private struct Source: MediaSource {
        let stream: IngestStream
        let track: IngestQueue.Track

        var name: String { "IngestStream \(ServerState.name(app: stream.app, key: stream.key)) \(track)" }

        func next() throws(MediaError) -> MediaSample? { try stream.queue.take(track) }
    }
}
