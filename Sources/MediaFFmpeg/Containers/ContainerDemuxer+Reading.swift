internal import CMediaFFmpeg
public import MediaCore

extension ContainerDemuxer {
    /// Reads a container that arrives through `read`, as it arrives: a socket's bytes (an SRT or UDP
    /// receiver's MPEG-TS), a pipe, a download. `AVAssetReader` has no such input; GStreamer's
    /// `appsrc ! tsdemux` is the peer.
    ///
    /// ```swift
    /// let demuxer = try ContainerDemuxer(formatName: "mpegts", inputName: "SRT stream 'cam'") { buffer in
    ///     try socket.receive(into: buffer)   // bytes written, 0 at the end
    /// }
    /// while let (stream, sample) = try demuxer.nextSample() { ... }
    /// ```
    ///
    /// - Parameters:
    ///   - formatName: the libavformat input format (`mpegts`, `flv`, `matroska`...), `nil` to probe
    ///     (which reads ahead, up to libavformat's probe size).
    ///   - inputName: what errors call the input.
    ///   - read: called on the demuxer's thread (the one opening it, then the one reading it) whenever
    ///     libavformat needs bytes: write at most `buffer.count` bytes into `buffer` and return how many;
    ///     block until some come; return 0 at the end of the input. What it throws ends the input, and the
    ///     demuxer throws it (its code and message, naming the input).
    /// - Throws: as ``init(path:)``; opening reads until libavformat knows the streams
    ///   (`avformat_find_stream_info`), so it waits for the first seconds of a live input. The input
    ///   cannot seek: ``seek(to:)`` throws. Backed by `avio_alloc_context` with a read callback.
    public convenience init(
        formatName: String?, inputName: String,
        read: @escaping (UnsafeMutableRawBufferPointer) throws(MediaError) -> Int
    ) throws(MediaError) {
        FFmpeg.quietLogging()
        let context: InputFormatContext
        let io: InputIOContext
        do throws(MediaError) {
            io = try InputIOContext(read: read)
            context = try InputFormatContext(url: nil, io: io, formatName: formatName)
        } catch {
            throw MediaError(
                error.code, "cannot open \(inputName) as a container: \(error.message)", ffmpegCall: error.ffmpegCall,
                ffmpegCode: error.ffmpegCode
            ).inStage("ContainerDemuxer")
        }
        do throws(MediaError) {
            try self.init(context: context, inputName: inputName)
        } catch {
            if let failure = io.failure {
                throw MediaError(failure.code, "cannot open \(inputName): \(failure.message)").inStage(
                    "ContainerDemuxer")
            }
            throw error.inStage("ContainerDemuxer")
        }
    }
}
