internal import CMediaFFmpeg
import MediaCore
import MediaStreaming

/// A ``ContainerMuxer`` streaming to a network URL (``/MediaStreaming/StreamingURL``) through
/// libavformat's protocols (``FileIOContext`` on the URL): every packet is flushed to the protocol as
/// it is muxed, the size is what was sent, and errors name the URL.
struct NetworkDestination: MuxerDestination {
    let connection: FileIOContext
    /// The URL as given, for errors.
    let url: String

    /// Connects to `url` with libavformat's protocol for its scheme; `protocolOptions` override the
    /// defaults its scheme brings (SRT's `linger`).
    init(url: StreamingURL, protocolOptions: [String: String]) throws(MediaError) {
        FFmpeg.initializeNetwork()
        connection = try FileIOContext(
            path: url.url, options: url.protocolOptions.merging(protocolOptions) { _, given in given })
        self.url = url.url
    }

    var bytesWritten: Int64 { connection.raw.map { avio_tell($0) } ?? 0 }

    func attach(to context: OutputFormatContext) throws(MediaError) {
        if let copy = av_strdup(url) { context.raw.pointee.url = copy }  // freed by avformat_free_context
        context.raw.pointee.pb = connection.raw
        context.raw.pointee.flush_packets = 1
    }

    func packetError(code: CInt, trackIndex: Int, sampleIndex: Int64) -> MediaError {
        Self.refusedPacket(code: code, trackIndex: trackIndex, sampleIndex: sampleIndex, to: url)
    }

    func writeTrailer(_ context: OutputFormatContext, rewritesMovie: Bool) throws(MediaError) {
        do throws(MediaError) {
            try check(av_write_trailer(context.raw), calling: "av_write_trailer", .io)
        } catch {
            var error = error
            error.message = "cannot end the stream to \(url): \(error.message)"
            throw error
        }
    }

    func close(after failure: inout MediaError?, rewritesMovie: Bool, gaplessTag: String?) -> Int64? {
        let sent = bytesWritten
        do throws(MediaError) { try connection.close() } catch { failure = failure ?? error }
        return sent
    }
}

@available(*, unavailable) extension NetworkDestination: Sendable {}
