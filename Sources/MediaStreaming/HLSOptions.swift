public import MediaCore

/// How `ContainerMuxer.init(hlsPlaylist:hls:)` writes HTTP Live Streaming: the segments' container,
/// their target duration and the kind of playlist. What `ffmpeg -f hls -hls_segment_type …
/// -hls_time … -hls_list_size …` or GStreamer's `hlssink2` set; Apple's `mediastreamsegmenter` has
/// the same three choices.
///
/// ```swift
/// var hls = HLSOptions()                      // MPEG-TS segments of ~2 s, a live window of 6
/// hls.segmentType = .fragmentedMP4            // fMP4 segments after an init segment (EXT-X-MAP)
/// hls.playlist = .vod                         // every segment listed, #EXT-X-ENDLIST at the end
/// let muxer = try ContainerMuxer(hlsPlaylist: "/var/www/live/stream.m3u8", hls: hls)
/// ```
///
/// - Refuses (when the muxer is made): a target duration that is not a positive number of seconds and a
///   live window of fewer than one segment: ``/MediaCore/MediaError/Code/invalidArgument``.
public struct HLSOptions: Sendable, Hashable {
    /// The container of the media segments.
    public enum SegmentType: Sendable, Hashable {
        /// MPEG-2 transport stream segments (`.ts`), the classic HLS segment: each starts with its
        /// own PAT/PMT and the H.264 parameter sets, so it decodes alone (`hls_segment_type mpegts`).
        case mpegTS
        /// Fragmented MP4 segments (`.m4s`, one `moof`/`mdat` each) after one init segment
        /// (`<name>_init.mp4`, the `moov` with the `avcC` and the AudioSpecificConfig) that the
        /// playlist names in `#EXT-X-MAP` (`hls_segment_type fmp4`; HLS version 7, what CMAF players want).
        case fragmentedMP4
    }

    /// What the playlist lists.
    public enum Playlist: Sendable, Hashable {
        /// A live sliding window: the playlist lists the last `windowSize` segments, its
        /// `#EXT-X-MEDIA-SEQUENCE` rises as older ones leave it, and the segments that left it are
        /// deleted from the folder (`hls_list_size N`, `hls_flags delete_segments`; libavformat keeps one
        /// unlisted segment a little longer for players still fetching it).
        case live(windowSize: Int)
        /// Video on demand: every segment stays listed and on disk, `#EXT-X-PLAYLIST-TYPE:VOD`, and
        /// `ContainerMuxer.finish()` ends the playlist with `#EXT-X-ENDLIST` (`hls_playlist_type vod`).
        case vod
    }

    /// The segments' container; ``SegmentType/mpegTS`` by default.
    public var segmentType: SegmentType
    /// The target duration of a segment (`hls_time`); 2 s by default. A segment is cut at the first
    /// video keyframe at or after it (audio-only: at the first packet), so a segment lasts whole GOPs:
    /// make the encoder's keyframe interval the target (e.g. `maxKeyFrameInterval = fps × 2`), or a
    /// divisor of it.
    public var targetSegmentDuration: MediaTime
    /// The playlist's kind; ``Playlist/live(windowSize:)`` of 6 segments by default.
    public var playlist: Playlist

    /// MPEG-TS segments of 2 s in a live window of 6 segments, or what is given.
    public init(
        segmentType: SegmentType = .mpegTS, targetSegmentDuration: MediaTime = .seconds(2),
        playlist: Playlist = .live(windowSize: 6)
    ) {
        self.segmentType = segmentType
        self.targetSegmentDuration = targetSegmentDuration
        self.playlist = playlist
    }

    /// MPEG-TS segments of `targetSegmentDuration` given as a Swift `Duration` (`.seconds(4)`), converted
    /// by ``/MediaCore/MediaTime/init(_:)``, in a live window of 6 segments, or what is given.
    @_disfavoredOverload
    public init(
        segmentType: SegmentType = .mpegTS, targetSegmentDuration: Duration, playlist: Playlist = .live(windowSize: 6)
    ) {
        self.init(segmentType: segmentType, targetSegmentDuration: MediaTime(targetSegmentDuration), playlist: playlist)
    }

    /// The target duration in microseconds (libavformat's duration options, hence `package`: MediaFFmpeg's
    /// HLS muxer sets them), or an error.
    package var targetMicroseconds: Int64 {
        get throws(MediaError) {
            let time = targetSegmentDuration
            // Rounded to the nearest microsecond: value × 10⁶ / timescale, in 128 bits.
            let scaled =
                time.isNumeric && time.timescale > 0
                ? (Int128(time.value) * 2_000_000 + Int128(time.timescale)) / (2 * Int128(time.timescale)) : 0
            guard scaled > 0, let value = Int64(exactly: scaled) else {
                throw MediaError(.invalidArgument, "HLS target segment duration \(time) is not a positive time")
            }
            return value
        }
    }
}
