internal import CMediaFFmpeg
import MediaCore

/// A ``ContainerMuxer`` writing to the file at a path, through an `AVIOContext` libavformat opened on
/// it (``FileIOContext``). The only destination libavformat's fast start can reopen by name, and the one
/// whose MP4 the muxer finishes itself (the gapless tag, the `moov` moved to the front) by rewriting
/// the file after the trailer.
struct FileDestination: MuxerDestination {
    let file: FileIOContext
    /// Whether the `moov` goes before the `mdat` (``ContainerMuxer/Options/fastStart``).
    let fastStart: Bool

    /// Creates (or truncates) the file at `path`.
    init(path: String, fastStart: Bool) throws(MediaError) {
        file = try FileIOContext(path: path)
        self.fastStart = fastStart
    }

    var bytesWritten: Int64 { file.raw.map { avio_tell($0) } ?? 0 }

    var movesMovieToFront: Bool { fastStart }

    func attach(to context: OutputFormatContext) throws(MediaError) {
        // The muxer's second pass for fast start reopens the file by this name.
        guard let url = av_strdup(file.path) else {
            throw MediaError(.outOfMemory, "cannot copy the path \(file.path)", ffmpegCall: "av_strdup")
        }
        context.raw.pointee.url = url  // freed by avformat_free_context
        context.raw.pointee.pb = file.raw
    }

    func close(after failure: inout MediaError?, rewritesMovie: Bool, gaplessTag: String?) -> Int64? {
        do throws(MediaError) { try file.close() } catch { failure = failure ?? error }
        if failure == nil, rewritesMovie {
            do throws(MediaError) {
                try MovieRewriter.rewriteFile(path: file.path, tag: gaplessTag, moveMovieToFront: fastStart)
            } catch { failure = error }
        }
        return MovieRewriter.fileSize(file.path)
    }
}

@available(*, unavailable) extension FileDestination: Sendable {}
