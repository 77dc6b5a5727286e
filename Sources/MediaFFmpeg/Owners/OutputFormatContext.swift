internal import CMediaFFmpeg
import MediaCore

/// Owns an output `AVFormatContext` (allocated with `avformat_alloc_output_context2`, freed with
/// `avformat_free_context`, which also frees its streams and their codec parameters). It does not own
/// the `AVIOContext` in `pb`: a ``FileIOContext`` or a ``CustomIOContext`` does (the `hls` muxer has no
/// `pb`: it opens and closes its files through the callbacks an ``HLSOutput`` sets).
final class OutputFormatContext {
    let raw: UnsafeMutablePointer<AVFormatContext>
    /// The object the context's `io_open`/`io_close2` callbacks reach through `opaque` (an ``HLSOutput``),
    /// kept until after `avformat_free_context`, which may still close files through them.
    var keepAlive: AnyObject?

    /// A context for libavformat's muxer named `muxerName` (`mp4`, `mpegts`, ...).
    init(muxerName: String) throws(MediaError) {
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        let code = avformat_alloc_output_context2(&context, nil, muxerName, nil)
        try check(code, calling: "avformat_alloc_output_context2", .unavailable)
        guard let context else {
            throw MediaError(
                .outOfMemory, "cannot allocate a \(muxerName) muxer context",
                ffmpegCall: "avformat_alloc_output_context2")
        }
        raw = context
        FFmpeg.didAllocate()
    }

    deinit {
        raw.pointee.pb = nil
        avformat_free_context(raw)
        FFmpeg.didFree()
    }
}

@available(*, unavailable) extension OutputFormatContext: Sendable {}
