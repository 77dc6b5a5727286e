/// A container file format that ``ContainerMuxer`` writes: `AVFileType` (`.mp4`, `.mov`, `.m4a`) plus
/// the streaming containers MPEG-TS and FLV, Matroska/WebM, and HLS (a playlist with its segments).
///
/// ```swift
/// let format = ContainerFormat(fileExtension: "m4v")   // .mp4
/// let same = ContainerFormat(name: "mpegts")           // .mpegTS, FFmpeg's short name
/// ```
///
/// Each format is backed by one libavformat muxer (`mp4`, `mov`, `ipod`, `mpegts`, `flv`, `matroska`,
/// `webm`, `hls`); ``name`` is the name this library uses and ``init(name:)`` takes FFmpeg's names too.
public struct ContainerFormat: Sendable, Hashable, CustomStringConvertible {
    /// This library's name for the format: `mp4`, `mov`, `m4a`, `mpegts`, `flv`, `matroska`, `webm`, `ogg`
    /// or `hls`.
    public let name: String
    /// The libavformat muxer's short name (`ipod` for M4A).
    let muxerName: String
    /// The file name extensions that select this format, the usual one first.
    public let fileExtensions: [String]

    private init(name: String, muxerName: String, fileExtensions: [String]) {
        self.name = name
        self.muxerName = muxerName
        self.fileExtensions = fileExtensions
    }

    /// MPEG-4 Part 14 (`.mp4`, `.m4v`): `AVFileType.mp4`. Backed by libavformat's `mp4` muxer.
    public static let mp4 = ContainerFormat(name: "mp4", muxerName: "mp4", fileExtensions: ["mp4", "m4v"])
    /// QuickTime (`.mov`): `AVFileType.mov`. Backed by libavformat's `mov` muxer.
    public static let mov = ContainerFormat(name: "mov", muxerName: "mov", fileExtensions: ["mov"])
    /// MPEG-4 audio (`.m4a`, iTunes' flavour of MP4, audio only): `AVFileType.m4a`. Backed by
    /// libavformat's `ipod` muxer.
    public static let m4a = ContainerFormat(name: "m4a", muxerName: "ipod", fileExtensions: ["m4a"])
    /// MPEG-2 transport stream (`.ts`, `.mts`, `.m2ts`), for broadcast and HLS. Backed by libavformat's
    /// `mpegts` muxer: 188-byte packets, or the 192-byte packets of Blu-ray's BDAV (M2TS) when the path
    /// ends in `.m2ts` (libavformat decides that by the file name).
    public static let mpegTS = ContainerFormat(
        name: "mpegts", muxerName: "mpegts", fileExtensions: ["ts", "mts", "m2ts"])
    /// Flash Video (`.flv`), what RTMP carries. Backed by libavformat's `flv` muxer.
    public static let flv = ContainerFormat(name: "flv", muxerName: "flv", fileExtensions: ["flv"])
    /// Matroska (`.mkv`). Backed by libavformat's `matroska` muxer.
    public static let matroska = ContainerFormat(name: "matroska", muxerName: "matroska", fileExtensions: ["mkv"])
    /// WebM (`.webm`): Matroska restricted to VP8/VP9/AV1 video and Vorbis/Opus audio. Backed by
    /// libavformat's `webm` muxer.
    public static let webm = ContainerFormat(name: "webm", muxerName: "webm", fileExtensions: ["webm"])
    /// Ogg (`.ogg`, `.opus`, `.oga`): Opus, Vorbis, FLAC and Theora in pages; an Opus stream's pre-skip is
    /// its `OpusHead`'s and its end its last page's granule position. Backed by libavformat's `ogg` muxer.
    public static let ogg = ContainerFormat(name: "ogg", muxerName: "ogg", fileExtensions: ["ogg", "opus", "oga"])

    /// HTTP Live Streaming (`.m3u8`): a playlist and MPEG-TS or fragmented MP4 segment files in one
    /// folder, written by ``ContainerMuxer/init(hlsPlaylist:hls:)`` with its ``/MediaStreaming/HLSOptions`` (or by
    /// ``ContainerMuxer/init(path:format:options:)`` with the default ones). Backed by libavformat's
    /// `hls` muxer. Not to a network URL nor to a ``/MediaCore/MediaOutput``: it opens its files itself.
    public static let hls = ContainerFormat(name: "hls", muxerName: "hls", fileExtensions: ["m3u8"])

    /// Every format, in the order above.
    public static let all: [ContainerFormat] = [.mp4, .mov, .m4a, .mpegTS, .flv, .matroska, .webm, .ogg, .hls]

    /// The format a file name extension stands for (`mp4 m4v mov m4a ts mts m2ts flv mkv webm ogg opus oga m3u8`, any
    /// case, with or without the dot), or `nil` for another extension.
    public init?(fileExtension: String) {
        var ext = fileExtension.lowercased()
        if ext.hasPrefix(".") { ext.removeFirst() }
        guard let match = Self.all.first(where: { $0.fileExtensions.contains(ext) }) else { return nil }
        self = match
    }

    /// The format with this name (``name``) or with FFmpeg's short name for it (`ipod` for M4A), any
    /// case; `nil` for another name.
    public init?(name: String) {
        let key = name.lowercased()
        guard let match = Self.all.first(where: { $0.name == key || $0.muxerName == key }) else { return nil }
        self = match
    }

    /// The format of a path's extension (`out.MP4` → ``mp4``), or `nil` when it has none or another.
    init?(path: String) {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return nil }
        self.init(fileExtension: String(file[file.index(after: dot)...]))
    }

    /// Whether this is one of the ISO base media formats (MP4, MOV, M4A), which have an index (`moov`),
    /// edit lists, fast start and fragments.
    var isISOBaseMedia: Bool { muxerName == "mp4" || muxerName == "mov" || muxerName == "ipod" }

    /// The name, e.g. `mp4`.
    public var description: String { name }
}
