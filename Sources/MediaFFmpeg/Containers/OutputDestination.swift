internal import CMediaFFmpeg
import MediaCore

/// A ``ContainerMuxer`` writing to any ``/MediaCore/MediaOutput`` through a custom `AVIOContext`
/// (``CustomIOContext``). libavformat sees only `AVERROR(EIO)` when the output throws, so the output's
/// own error is the one reported. For the gapless tag, the `moov` the trailer writes is captured and
/// rewritten on the output after it.
struct OutputDestination: MuxerDestination {
    let custom: CustomIOContext

    init(output: any MediaOutput) throws(MediaError) {
        custom = try CustomIOContext(output: output)
    }

    var bytesWritten: Int64 { custom.bridge.size }

    func attach(to context: OutputFormatContext) throws(MediaError) {
        context.raw.pointee.pb = custom.raw
        context.raw.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
    }

    func packetError(code: CInt, trackIndex: Int, sampleIndex: Int64) -> MediaError {
        guard var failure = custom.bridge.failure else {
            return Self.refusedPacket(code: code, trackIndex: trackIndex, sampleIndex: sampleIndex, to: nil)
        }
        failure.sampleIndex = failure.sampleIndex ?? sampleIndex
        return failure
    }

    /// With `rewritesMovie`, flushes the interleaving queue into the `mdat` first, so that the trailer
    /// writes only the `moov`, which the bridge captures from there for ``close(after:rewritesMovie:gaplessTag:)``.
    func writeTrailer(_ context: OutputFormatContext, rewritesMovie: Bool) throws(MediaError) {
        let bridge = custom.bridge
        do throws(MediaError) {
            if rewritesMovie {
                try check(av_interleaved_write_frame(context.raw, nil), calling: "av_interleaved_write_frame", .io)
                try custom.flush()
                bridge.captureStart = bridge.position
            }
            try check(av_write_trailer(context.raw), calling: "av_write_trailer", .io)
        } catch {
            throw bridge.failure ?? error  // the output's own error, not libavformat's EIO
        }
        if let written = bridge.failure { throw written }
    }

    func close(after failure: inout MediaError?, rewritesMovie: Bool, gaplessTag: String?) -> Int64? {
        let bridge = custom.bridge
        do throws(MediaError) {
            try custom.flush()
            if failure == nil, rewritesMovie, let movieEnd = bridge.captureStart, let tag = gaplessTag {
                try MovieRewriter.addTag(
                    tag, toMovieAtEndOf: bridge.output, movie: bridge.captured, at: bridge.base + movieEnd)
            }
        } catch { failure = failure ?? error }
        do throws(MediaError) { try bridge.output.close() } catch { failure = failure ?? error }
        return bridge.size
    }
}

@available(*, unavailable) extension OutputDestination: Sendable {}
