internal import CMediaFFmpeg
import MediaCore

/// Owns an `AVIOContext` opened on a URL for reading (`avio_open2` with `AVIO_FLAG_READ`, closed with
/// `avio_closep`), with the interrupt that bounds its blocking calls; counted for leak tests, not
/// Sendable, like the other owners.
final class URLIOContext {
    let raw: UnsafeMutablePointer<AVIOContext>
    private var owned: UnsafeMutablePointer<AVIOContext>?
    /// Kept while the context lives: libavformat holds a pointer to it.
    let interrupt: NetworkInterrupt

    /// Opens `url` with the protocol's `options` (one it does not take throws
    /// ``/MediaCore/MediaError/Code/invalidArgument`` naming it). Throws `avio_open2`'s error.
    init(url: String, options: [(String, String)], interrupt: NetworkInterrupt) throws(MediaError) {
        var dictionary: OpaquePointer? = nil
        defer { av_dict_free(&dictionary) }
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        var context: UnsafeMutablePointer<AVIOContext>? = nil
        var callback = interrupt.callback
        try check(avio_open2(&context, url, AVIO_FLAG_READ, &callback, &dictionary), calling: "avio_open2", .io)
        guard let context else {
            throw MediaError(.outOfMemory, "avio_open2 returned no context", ffmpegCall: "avio_open2")
        }
        owned = context
        raw = context
        self.interrupt = interrupt
        FFmpeg.didAllocate()
        if let unused = av_dict_get(dictionary, "", nil, AV_DICT_IGNORE_SUFFIX) {
            throw MediaError(
                .invalidArgument, "the protocol does not take the option '\(String(cString: unused.pointee.key))'")
        }
    }

    deinit {
        avio_closep(&owned)
        FFmpeg.didFree()
    }
}

@available(*, unavailable) extension URLIOContext: Sendable {}
