import MediaCore
import MediaFFmpeg

/// What a ``MediaPlayer`` plays: anything ``/MediaFFmpeg/ContainerDemuxer`` opens, opened once per
/// stream branch (each branch owns its demuxer and reads at its own pace) and once per keyframe lookup.
enum PlayerInput: Sendable {
    /// A file.
    case path(String)
    /// A container held in memory, probed unless `formatName` names its libavformat format.
    case bytes([UInt8], formatName: String?)

    /// The input as errors name it: the path, or "in-memory input (N bytes)".
    var name: String {
        switch self {
        case .path(let path): path
        case .bytes(let bytes, _): "in-memory input (\(count: bytes.count, "byte"))"
        }
    }

    /// A new demuxer of the whole input.
    func open() throws(MediaError) -> sending ContainerDemuxer {
        switch self {
        case .path(let path): try ContainerDemuxer(path: path)
        case .bytes(let bytes, let formatName): try ContainerDemuxer(bytes: bytes, formatName: formatName)
        }
    }

    /// A new demuxer that reads stream `stream` alone.
    func streamSource(_ stream: Int) throws(MediaError) -> sending ContainerDemuxer.StreamSource {
        switch self {
        case .path(let path): try ContainerDemuxer.streamSource(path: path, stream: stream)
        case .bytes(let bytes, let formatName):
            try ContainerDemuxer.streamSource(ContainerDemuxer(bytes: bytes, formatName: formatName), stream: stream)
        }
    }
}
