internal import CMediaFFmpeg
import MediaCore

/// Where a ``ContainerMuxer`` writes: one type per kind (``FileDestination``, ``OutputDestination``,
/// ``NetworkDestination``, ``HLSDestination``), each holding the owner of what libavformat writes
/// through, so that the muxer's entry points (`init`, `write`, `finish`) ask the destination instead of
/// switching on its kind.
///
/// - Life: made before the muxer's format context, then ``attach(to:)``-ed to it once; the muxer calls
///   ``configure(_:)`` before `avformat_write_header`, ``writeTrailer(_:rewritesMovie:)`` after the last
///   packet (only when the header was written), ``close(after:rewritesMovie:gaplessTag:)`` once at the
///   end, and ``abandon(_:)`` instead of both when it is released after its header without `finish`.
/// - Errors: the ones libavformat reports as a bare code are named here (the file, the URL, the output's
///   own error), by ``headerError(code:)``, ``packetError(code:trackIndex:sampleIndex:)`` and the trailer.
/// - Cost: every conformer is a struct of one owner reference (and at most a URL), stored inline in the
///   muxer's existential (no box); the per-packet path calls it only when libavformat refuses a packet.
protocol MuxerDestination {
    /// Bytes of the container handed to the destination so far.
    var bytesWritten: Int64 { get }

    /// Whether libavformat is to move the `moov` to the front itself (`movflags faststart`): only for a
    /// file asked for fast start, since its second pass reopens the file by name.
    var movesMovieToFront: Bool { get }

    /// Points `context` at the destination (its `pb`, URL or I/O callbacks), once, before the header.
    func attach(to context: OutputFormatContext) throws(MediaError)

    /// Sets the muxer's private options the destination needs, just before `avformat_write_header`.
    func configure(_ context: OutputFormatContext) throws(MediaError)

    /// The error for a header libavformat refused with `code` because of the destination, or `nil` when
    /// the refusal is the muxer's (the tracks), which the muxer then reports.
    func headerError(code: CInt) -> MediaError?

    /// The error for a packet of track `trackIndex`, `sampleIndex` in its track, that libavformat refused
    /// with `code`.
    func packetError(code: CInt, trackIndex: Int, sampleIndex: Int64) -> MediaError

    /// Writes the trailer (`av_write_trailer`); with `rewritesMovie` (the muxer adds the gapless tag to
    /// an MP4/MOV/M4A itself), first brings what the destination needs to read the `moov` back.
    func writeTrailer(_ context: OutputFormatContext, rewritesMovie: Bool) throws(MediaError)

    /// Closes the output and returns the container's final size (`nil` when it cannot be read).
    /// `failure` is the first error so far: the destination's own errors are kept only when there is
    /// none, and the movie is rewritten (`rewritesMovie`, with `gaplessTag` when there is one) only
    /// when nothing failed.
    func close(after failure: inout MediaError?, rewritesMovie: Bool, gaplessTag: String?) -> Int64?

    /// Ends a muxer released after its header without `finish` (after a write error, say).
    func abandon(_ context: OutputFormatContext)
}

extension MuxerDestination {
    var movesMovieToFront: Bool { false }

    func configure(_ context: OutputFormatContext) throws(MediaError) {}

    func headerError(code: CInt) -> MediaError? { nil }

    func packetError(code: CInt, trackIndex: Int, sampleIndex: Int64) -> MediaError {
        Self.refusedPacket(code: code, trackIndex: trackIndex, sampleIndex: sampleIndex, to: nil)
    }

    func writeTrailer(_ context: OutputFormatContext, rewritesMovie: Bool) throws(MediaError) {
        try check(av_write_trailer(context.raw), calling: "av_write_trailer", .io)
    }

    func abandon(_ context: OutputFormatContext) {}

    /// libavformat's error `code` for a refused packet (FFmpeg's description, as the funnel words it),
    /// naming the track and, for a stream, the URL it went `to`.
    static func refusedPacket(code: CInt, trackIndex: Int, sampleIndex: Int64, to url: String?) -> MediaError {
        var error = MediaError.ffmpeg(code, calling: "av_interleaved_write_frame", .io)
        let to = url.map { " to \($0)" } ?? ""
        error.message = "cannot write sample of track \(trackIndex)\(to): \(error.message)"
        error.sampleIndex = sampleIndex
        return error
    }
}
