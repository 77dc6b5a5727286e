internal import CMediaFFmpeg
import MediaCore
import MediaStreaming

/// A ``ContainerMuxer`` writing HTTP Live Streaming to a folder: libavformat's `hls` muxer opens the
/// playlist and every segment itself, and ``HLSOutput`` sees each file through the format context's I/O
/// callbacks, so that the size counts the segments closed and errors name the file that failed.
struct HLSDestination: MuxerDestination {
    let output: HLSOutput

    /// Checks `settings` and the playlist's path, and creates its folder when missing.
    init(playlist: String, settings: HLSOptions) throws(MediaError) {
        output = try HLSOutput(playlist: playlist, settings: settings)
    }

    var bytesWritten: Int64 { output.bytesWritten }

    func attach(to context: OutputFormatContext) throws(MediaError) {
        try output.attach(to: context)
    }

    func configure(_ context: OutputFormatContext) throws(MediaError) {
        try output.configure(context.raw)
    }

    func headerError(code: CInt) -> MediaError? {
        output.failure == nil ? nil : output.error("cannot write", code: code, call: "avformat_write_header")
    }

    func packetError(code: CInt, trackIndex: Int, sampleIndex: Int64) -> MediaError {
        var error = output.error(
            "cannot write sample of track \(trackIndex) to", code: code, call: "av_interleaved_write_frame")
        error.sampleIndex = sampleIndex
        return error
    }

    func writeTrailer(_ context: OutputFormatContext, rewritesMovie: Bool) throws(MediaError) {
        let code = av_write_trailer(context.raw)
        if code < 0 { throw output.error("cannot end", code: code, call: "av_write_trailer") }
    }

    func close(after failure: inout MediaError?, rewritesMovie: Bool, gaplessTag: String?) -> Int64? {
        // Files the muxer could not close (its own trailer call does not return their errors).
        if failure == nil, let failed = output.failure {
            failure = output.error("cannot write", code: failed.code, call: "avio_closep")
        }
        return output.bytesWritten
    }

    /// Writes the trailer the muxer never got: FFmpeg 5.1's `hls` muxer frees its in-memory segment
    /// buffer in its trailer only, not when its context is freed, so each abandoned HLS output would leak
    /// a segment's bytes (LeakSanitizer found it in
    /// `HLSOutputTests.aFolderRemovedWhileWritingIsAnIOErrorNamingTheSegment`). The trailer's error, if
    /// any, has nowhere to go; what it writes ends the playlist as `finish` would. The other destinations
    /// need nothing here.
    func abandon(_ context: OutputFormatContext) {
        _ = av_write_trailer(context.raw)
    }
}

@available(*, unavailable) extension HLSDestination: Sendable {}
