public import MediaFFmpeg

/// What a ``MediaExportSession`` writes: a container (``/MediaFFmpeg/ContainerMuxer``), or a bare stream
/// or PCM/raw file through MediaPipeline's own muxers.
public enum ExportFormat: Sendable, Hashable {
    /// MP4, MOV, M4A, MPEG-TS, FLV, Matroska or WebM, with every audio and video stream it takes.
    case container(ContainerFormat)
    /// ADTS (`.aac`): the first audio stream, as AAC.
    case adts
    /// H.264 Annex-B (`.h264`): the first video stream, as H.264.
    case annexB
    /// CAF: the first audio stream, AAC or PCM (PCM is kept as it is).
    case caf
    /// WAV: the first audio stream, decoded to 16-bit PCM.
    case wav
    /// YUV4MPEG2 (`.y4m`): the first video stream, decoded.
    case y4m

    /// The names ``init(name:)`` takes: the containers' and the own formats'.
    public static let names = ContainerFormat.all.map(\.name) + ["aac", "h264", "caf", "wav", "y4m"]

    /// The format `name` names: a container (``/MediaFFmpeg/ContainerFormat/init(name:)``: `mp4`,
    /// `mpegts`, ...) or one of the own formats (`aac` or `adts`, `h264` or `annexb`, `caf`, `wav`, `y4m`
    /// or `yuv4mpegpipe`); `nil` for another name.
    public init?(name: String) {
        switch name.lowercased() {
        case "aac", "adts": self = .adts
        case "h264", "annexb": self = .annexB
        case "caf": self = .caf
        case "wav": self = .wav
        case "y4m", "yuv4mpegpipe": self = .y4m
        default:
            guard let container = ContainerFormat(name: name) else { return nil }
            self = .container(container)
        }
    }

    /// The format a file called `path` is written in, from its extension; `nil` for an extension
    /// none has.
    public init?(path: String) {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "aac": self = .adts
        case "h264", "264": self = .annexB
        case "caf": self = .caf
        case "wav": self = .wav
        case "y4m": self = .y4m
        default:
            guard let container = ContainerFormat(fileExtension: ext) else { return nil }
            self = .container(container)
        }
    }

    /// Whether this is a container (any number of streams) rather than a one-stream file.
    public var isContainer: Bool { if case .container = self { true } else { false } }
    /// Whether the format holds audio.
    public var takesAudio: Bool { self != .annexB && self != .y4m }
    /// Whether the format holds video.
    public var takesVideo: Bool {
        switch self {
        case .container(let container): container != .m4a
        case .annexB, .y4m: true
        case .adts, .caf, .wav: false
        }
    }
}
