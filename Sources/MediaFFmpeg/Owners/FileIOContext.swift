internal import CMediaFFmpeg
import MediaCore

/// Owns an `AVIOContext` that libavformat opened on a path for writing (`avio_open2`), closed with
/// `avio_closep` by ``close()`` or, at the latest, in `deinit`.
final class FileIOContext {
    private var owned: UnsafeMutablePointer<AVIOContext>?
    /// The path written.
    let path: String

    /// Creates (or truncates) the file at `path`, or connects to the URL `path` (libavformat's
    /// protocols, with `options` for the protocol); the error names the path.
    init(path: String, options: [String: String] = [:]) throws(MediaError) {
        // `path` is set only once the file is open: a throw before every stored property is set skips
        // `deinit`, whose `didFree` would otherwise uncount an object never counted (liveCount went to -1).
        var context: UnsafeMutablePointer<AVIOContext>? = nil
        var dictionary: OpaquePointer? = nil
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        let code = avio_open2(&context, path, AVIO_FLAG_WRITE, nil, &dictionary)
        av_dict_free(&dictionary)
        guard code >= 0, let context else {
            throw MediaError(
                .io, "cannot open \(path) for writing: \(FFmpeg.describe(code))", ffmpegCall: "avio_open2",
                ffmpegCode: code < 0 ? code : nil)
        }
        owned = context
        self.path = path
        FFmpeg.didAllocate()
    }

    /// The context, or `nil` once closed.
    var raw: UnsafeMutablePointer<AVIOContext>? { owned }

    /// Flushes and closes the file (once; later calls do nothing).
    func close() throws(MediaError) {
        guard owned != nil else { return }
        let code = avio_closep(&owned)
        if code < 0 {
            throw MediaError(
                .io, "cannot close \(path): \(FFmpeg.describe(code))", ffmpegCall: "avio_closep", ffmpegCode: code)
        }
    }

    deinit {
        if owned != nil { _ = avio_closep(&owned) }
        FFmpeg.didFree()
    }
}

@available(*, unavailable) extension FileIOContext: Sendable {}
