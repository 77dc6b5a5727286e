internal import CMediaFFmpeg
import MediaBitstream
public import MediaCore
public import MediaStreaming

/// Writes encoded audio and video tracks into a container file without re-encoding: `AVAssetWriter`
/// with pass-through inputs, or GStreamer's `mp4mux` / `mpegtsmux` / `flvmux` / `matroskamux`.
///
/// | destination                          | initializer                    | container                      |
/// |--------------------------------------|--------------------------------|--------------------------------|
/// | a file path                          | ``init(path:format:options:)`` | from the extension             |
/// | any ``/MediaCore/MediaOutput``        | ``init(output:format:options:)`` | the one given                |
/// | `rtmp(s)://`, `srt://`, `udp://`, `tcp://` | ``init(url:format:options:protocolOptions:)`` | FLV or MPEG-TS (``/MediaStreaming/StreamingURL``) |
/// | a folder, as its playlist `….m3u8`   | ``init(hlsPlaylist:hls:)``     | HLS: MPEG-TS or fMP4 segments (``/MediaStreaming/HLSOptions``) |
///
/// ```swift
/// let muxer = CheckedMultiTrackSink(try ContainerMuxer(path: "out.mp4"))   // the format from the extension
/// try muxer.begin(tracks: [.video(h264Format), .audio(aacFormat)])
/// for (sample, track) in samplesInDecodeOrder { try muxer.write(sample, track: track) }
/// try muxer.finish()
/// ```
///
/// - Input: one format per track in ``begin(tracks:)`` (`nil` for a track that ended empty: it gets no
///   stream), then the samples of all tracks interleaved by decode time, in non-decreasing decode time
///   within a track:
///   - AAC (``/MediaCore/AudioCodec/aac``): raw access units, the AudioSpecificConfig as the format's
///     magic cookie (stored as is, also FFmpeg's 5-byte one). ``/MediaCore/MediaSample/trimAtStart`` and
///     ``/MediaCore/MediaSample/trimAtEnd`` (encoder priming and padding) are honoured in MP4/MOV/M4A
///     that are not fragmented (see below).
///   - H.264 (``/MediaCore/VideoCodec/h264``): AVCC samples (4-byte lengths, one access unit each,
///     ``/MediaCore/MediaSample/Flags/keyframe`` on IDRs), the SPS/PPS in ``/MediaCore/VideoFormat/h264``;
///     the muxer builds the `avcC` record (``/MediaBitstream/AVCDecoderConfigurationRecord``, as FFmpeg
///     writes it). Samples are checked with ``/MediaBitstream/AVCCParser``, as ``H264Decoder`` and
///     `AnnexBMuxer` check them: a length past the end is ``/MediaCore/MediaError/Code/truncated``, a
///     zero-length NAL unit is dropped. For MPEG-TS, libavformat converts them to Annex-B with the
///     parameter sets before each IDR (its automatic `h264_mp4toannexb`), and AAC gets ADTS headers.
///   - Other codecs by the four-character code ``ContainerDemuxer`` names them by, or an alias
///     (the codec table's rows: `opus`/`Opus`, `flac`/`fLaC`, `alac`, `.mp3`, `ac-3`, `ec-3`, `vorb`,
///     `hvc1`/`hev1`, `av01`, `vp09`, `vp08`, ...), their configuration record passed as is. HEVC in
///     MP4 and MOV is tagged `hvc1` (what Apple's players take). An Opus track's first trim becomes
///     its `initial_padding` (Matroska's `CodecDelay`), and in Matroska and WebM a trim at the end of an
///     audio sample its block's `DiscardPadding`, so that a copy of an Opus track writes the packets
///     `ffmpeg -c copy` writes. VP9's configuration is its `vpcC` record
///     (``/MediaBitstream/VPCodecConfigurationRecord``), which becomes the stream's profile, pixel format
///     and colours (VP9 has no extradata; libavformat writes MP4's `vpcC` from them).
///   Raw video and PCM are refused (encode them first), as is a codec the container cannot carry
///   and video in M4A: ``/MediaCore/MediaError/Code/unsupportedFormat`` naming the track, the codec and
///   the container. With FFmpeg 5.1: WebM takes only VP8, VP9, AV1, Opus and Vorbis; FLV (and so RTMP)
///   takes H.264 and AAC but not HEVC, AV1, VP9 or Opus (the enhanced FLV of later versions is not
///   there); MPEG-TS takes H.264, HEVC, MPEG video, AAC, MP3, AC-3, E-AC-3, DTS and Opus, and refuses
///   VP9, AV1, FLAC and the rest, which its muxer would write as private data no demuxer reads back.
/// - Output: the container, to a path or to any ``/MediaCore/MediaOutput``. Timestamps are converted
///   exactly (rounded to nearest once, never accumulated) to each stream's time base as the muxer chose it.
///   A sample's bytes are copied into a pooled packet buffer, except a ``ContainerDemuxer`` sample that
///   borrows a whole packet of libavformat's: its buffer is passed on by reference (a remux copies no
///   payload).
///   A sample whose decode time goes backwards within its track throws ``/MediaCore/MediaError/Code/invalidData``
///   with the sample's index in that track.
/// - Gapless AAC in MP4/MOV/M4A (one AAC track, not fragmented), as `AVAssetWriter` and iTunes write it: the priming (the first packet's
///   pts is `start − priming`) becomes an edit list whose media time is the priming, the last packet
///   lasts only its valid frames (1024 − `trimAtEnd`) so that the edit's duration is exactly the valid
///   frames (in an audio-only file the movie timescale is the sample rate, so the duration is exact), and
///   an `iTunSMPB` tag (moov/udta/meta/ilst, freeform `----` atom of `com.apple.iTunes`) gives priming,
///   remainder and valid frames. libavformat cannot write that tag: the muxer adds it after the trailer,
///   rewriting the file (moving the `moov` in front of `mdat` when ``Options/fastStart``) for a path,
///   or the `moov` at the end of a seekable ``/MediaCore/MediaOutput``. (FFmpeg 5.1 honours the edit's
///   start but not its end: it decodes valid frames + remainder, the first valid frame first.)
/// - Fast start (`moov` before `mdat`) works only for a path: libavformat's second pass reopens the
///   file by name. To a ``/MediaCore/MediaOutput`` the `moov` comes last; a non-seekable output needs
///   ``Options/fragmented`` for MP4/MOV/M4A.
///
/// ``finish()`` writes the trailer and closes the output; it may come after an error (what was
/// written stays a valid file) and without ``begin(tracks:)`` (the output is closed empty).
///
/// A ``/MediaCore/MediaGraph`` keeps the life cycle (`begin` once, writes, nothing after an error but
/// `finish`, `finish` once) and stamps the errors with the sink's name and the sample's index. To call
/// the muxer by hand, wrap it in a ``/MediaCore/CheckedMultiTrackSink``, as above, which does the same.
/// Unwrapped, the muxer still never hands libavformat a call it cannot take: a packet before the
/// header, a second set of streams, or anything after ``finish()`` closed the output throws
/// (``/MediaCore/MediaError/Code/invalidArgument``, or ``/MediaCore/MediaError/Code/stageFinished``
/// after `finish`).
///
/// Backed by libavformat (`avformat_write_header`, `av_interleaved_write_frame`, `av_write_trailer`),
/// writing through `avio_open2` for a path or a custom `AVIOContext` for a ``/MediaCore/MediaOutput``;
/// for HLS, libavformat's `hls` muxer opens each file itself (seen through `io_open`/`io_close2`).
public final class ContainerMuxer: MultiTrackSink {
    /// How the container is written.
    public struct Options: Sendable, Hashable {
        /// Fragmented MP4/MOV/M4A (`moof`/`mdat` pairs cut at video keyframes after an empty `moov`,
        /// movflags `frag_keyframe+empty_moov+default_base_moof`; without video, one fragment per second):
        /// a file cut short stays readable up to its last complete fragment, and it can be written to a
        /// non-seekable output. There is no edit list and no iTunSMPB tag then: libavformat shifts the
        /// timestamps to start at zero instead. Ignored by the other containers.
        public var fragmented: Bool = false
        /// Puts the `moov` before the `mdat` of a finished (not fragmented) MP4/MOV/M4A written to a
        /// path, so that players can start before the whole file has arrived (movflags `faststart`).
        /// Not possible to a ``/MediaCore/MediaOutput``.
        public var fastStart: Bool = true
        /// How much media time of written packets the output may lack at most: what was written is
        /// handed to the output (`avio_flush`) at each keyframe and whenever this much has passed since
        /// the last flush, so that a file cut short by a crash or SIGKILL holds all but the last
        /// interval: MPEG-TS and the like to that packet, Matroska to its last cluster (clusters are then
        /// closed every second, `cluster_time_limit`). `nil` (default): libavformat's file protocol
        /// buffers up to 256 KiB. Fragmented MP4 is flushed once per fragment whatever this says. A
        /// flush is a write call: a quarter second costs a few per second, a packet each costs one per
        /// packet.
        public var flushInterval: Duration?
        /// MPEG-TS: how far the timestamps start after the first PCR, so that a decoder has that long
        /// to buffer, and the longest audio PES packet (half of it): `ffmpeg -muxdelay`, whose CLI default
        /// is 0.7 s (a file from the CLI starts at 1.4 s, its audio in PES packets of up to 0.35 s).
        /// `nil` (default): 0, the timestamps start with the PCR and each audio frame has its own PES
        /// packet. `MediaExportSession` (MediaPipeline) sets the CLI's, so that `transcode` writes the
        /// MPEG-TS `ffmpeg -c copy` writes.
        public var muxDelay: Duration?

        /// The defaults: not fragmented, fast start, packets buffered.
        public init() {}
    }

    /// The container written.
    public let format: ContainerFormat
    /// The options given.
    public let options: Options
    /// Samples written so far (all tracks), for progress.
    public private(set) var samplesWritten: Int64 = 0
    /// Bytes of the container written so far (what libavformat has handed to the output; after
    /// ``finish()``, the file's size).
    public var bytesWritten: Int64 { finalSize ?? destination.bytesWritten }

    /// `ContainerMuxer(mp4)`.
    public var name: String { "ContainerMuxer(\(format.name))" }

    private let context: OutputFormatContext
    /// The file, output, URL or HLS folder written, and what each needs at the header, a refused packet
    /// and the end.
    private let destination: any MuxerDestination
    private let packet: Packet
    /// The buffers of the packets written: libavformat keeps a reference while it interleaves.
    private let packetBuffers = PacketBufferPool()
    /// Whether libavformat wrote the header: packets may go to it, and `finish` writes the trailer.
    private var headerWritten = false
    /// Whether `finish` closed the output: libavformat's I/O context is freed, so nothing may reach it.
    private var isClosed = false
    /// Per input track (index as in `begin`), `nil` for a track without a stream.
    private var tracks: [Track?] = []
    /// Whether `finish` adds the iTunSMPB tag / moves the `moov` itself instead of libavformat.
    private var rewritesMovie = false
    private var finalSize: Int64?
    /// The decode time, in seconds, of the packet after which the output was last flushed
    /// (``Options/flushInterval``).
    private var lastFlush: Double?

    /// A muxer dropped after its header without ``finish()`` (after a write error, say) lets its
    /// destination end what needs ending (an HLS folder's trailer).
    deinit {
        if headerWritten, !isClosed { destination.abandon(context) }
    }

    /// A muxer writing `format` with `options` to `destination`, which is attached to a new format
    /// context; every public initializer ends here.
    private init(format: ContainerFormat, options: Options, destination: any MuxerDestination) throws(MediaError) {
        self.format = format
        self.options = options
        context = try OutputFormatContext(muxerName: format.muxerName)
        packet = try Packet()
        self.destination = destination
        try destination.attach(to: context)
    }

    /// A muxer writing to the file at `path` (created or truncated now), in `format` or, when `nil`, the
    /// format of the path's extension. For ``ContainerFormat/hls`` (or a path ending in `.m3u8`), this is
    /// ``init(hlsPlaylist:hls:)`` with the default ``/MediaStreaming/HLSOptions``.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` when the extension names no format and
    ///   none is given; ``/MediaCore/MediaError/Code/io`` naming the path when it cannot be created.
    public convenience init(path: String, format: ContainerFormat? = nil, options: Options = Options())
        throws(MediaError)
    {
        guard let chosen = format ?? ContainerFormat(path: path) else {
            throw MediaError(
                .invalidArgument,
                "cannot tell the container of \(path) from its extension; give a format (extensions: mp4 m4v mov m4a ts mts m2ts flv mkv webm m3u8)"
            )
        }
        FFmpeg.quietLogging()
        let destination: any MuxerDestination =
            if chosen == .hls {
                try HLSDestination(playlist: path, settings: HLSOptions())
            } else {
                try FileDestination(path: path, fastStart: options.fastStart)
            }
        try self.init(format: chosen, options: options, destination: destination)
    }

    /// A muxer writing HTTP Live Streaming to a folder: the playlist at `path` (`…/live.m3u8`) and the
    /// segments beside it (`live0.ts`, `live1.ts`… or `live_init.mp4`, `live0.m4s`…), as `ffmpeg -f hls`
    /// or GStreamer's `hlssink2` write them, for any web server to serve. The folder is created with its
    /// parents when missing. libavformat's `hls` muxer cuts a segment at the first video keyframe after
    /// ``/MediaStreaming/HLSOptions/targetSegmentDuration``, rewrites the playlist after each segment (a live playlist
    /// atomically, through a temporary file) and, for a live window, deletes the segments that left it;
    /// ``finish()`` writes the last segment and `#EXT-X-ENDLIST`. Takes H.264 and AAC (either or
    /// both); MPEG-TS segments carry the parameter sets before each IDR and ADTS audio, fMP4 segments an
    /// `avcC` and the AudioSpecificConfig in the init segment. ``bytesWritten`` counts the bytes of the
    /// segments (init segment included, playlist not) closed so far. Writes at file speed: no pacing.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a path that names no file or holds a
    ///   `%` (libavformat reads it in the segments' name template), a target
    ///   duration that is not positive or a live window under one segment;
    ///   ``/MediaCore/MediaError/Code/io`` naming the folder when it cannot be created (a part of it is a
    ///   file, no permission) or written. Later, a segment or playlist that cannot be written is an
    ///   ``/MediaCore/MediaError/Code/io`` error naming that file.
    public convenience init(hlsPlaylist path: String, hls: HLSOptions = HLSOptions()) throws(MediaError) {
        FFmpeg.quietLogging()
        let destination = try HLSDestination(playlist: path, settings: hls)
        try self.init(format: .hls, options: Options(), destination: destination)
    }

    /// A muxer streaming to a network `url` (``/MediaStreaming/StreamingURL``: `rtmp://`/`rtmps://` carry FLV, `srt://`,
    /// `udp://` and `tcp://` carry MPEG-TS unless `format` says otherwise), connecting now through
    /// libavformat's protocols. Every packet is handed to the protocol as it is muxed (no buffering for
    /// latency); a write blocks while the network does not take it (put a ``/MediaStreaming/LiveStreamSink``
    /// in front to keep the encoder going). ``bytesWritten`` counts what was handed to the protocol.
    /// `protocolOptions` go to the protocol as AVOptions (`send_buffer_size`, `rw_timeout`, SRT's
    /// `latency`…: what `ffmpeg -send_buffer_size 65536 … tcp://…` sets; not every one is read from the
    /// URL's query), over the defaults of ``/MediaStreaming/StreamingURL``.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` naming the URL for an unknown scheme;
    ///   ``/MediaCore/MediaError/Code/unsupportedFormat`` for MP4/MOV/M4A that are not fragmented;
    ///   ``/MediaCore/MediaError/Code/io`` naming the URL when the connection fails (refused, no route,
    ///   SRT handshake or RTMP publish refused); ``/MediaCore/MediaError/Code/unsupportedFormat`` for
    ///   ``ContainerFormat/hls`` (HLS goes to a folder: ``init(hlsPlaylist:hls:)``).
    public convenience init(
        url: String, format: ContainerFormat? = nil, options: Options = Options(),
        protocolOptions: [String: String] = [:]
    ) throws(MediaError) {
        let streamingURL = try StreamingURL(url)
        let chosen = format ?? streamingURL.defaultFormat
        if chosen == .hls {
            throw MediaError(
                .unsupportedFormat, "HLS is written to a folder (init(hlsPlaylist:)), not streamed to \(url)")
        }
        if chosen.isISOBaseMedia, !options.fragmented {
            throw MediaError(.unsupportedFormat, "\(chosen) cannot be streamed to \(url) without Options.fragmented")
        }
        FFmpeg.quietLogging()
        let destination = try NetworkDestination(url: streamingURL, protocolOptions: protocolOptions)
        try self.init(format: chosen, options: options, destination: destination)
    }

    /// A muxer writing to `output` through a custom I/O context; libavformat seeks (to patch sizes) only
    /// if `output.isSeekable`. MP4/MOV/M4A need a seekable output unless ``Options/fragmented``; fast
    /// start is not possible here (the `moov` comes last).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/unsupportedFormat`` for a non-fragmented MP4/MOV/M4A to a
    ///   non-seekable output, and for ``ContainerFormat/hls``.
    public convenience init(output: any MediaOutput, format: ContainerFormat, options: Options = Options())
        throws(MediaError)
    {
        if format == .hls {
            throw MediaError(
                .unsupportedFormat, "HLS writes a playlist and segment files to a folder; use init(hlsPlaylist:)")
        }
        if format.isISOBaseMedia, !options.fragmented, !output.isSeekable {
            throw MediaError(
                .unsupportedFormat,
                "\(format) needs a seekable output to write its index at the end; use Options.fragmented for a stream")
        }
        FFmpeg.quietLogging()
        try self.init(format: format, options: options, destination: try OutputDestination(output: output))
    }

    /// Whether some container this muxer writes can carry samples of `format`: H.264, AAC, or a codec of
    /// the codec table (HEVC, AV1, VP9, Opus, FLAC, ALAC, AC-3, DTS, ...), compressed. Raw video and PCM
    /// are `false` (they are encoded first), as is a codec the table does not know.
    public static func knowsCodec(of format: MediaFormat) -> Bool {
        switch format {
        case .audio(let audio):
            switch audio.codec {
            case .aac: return true
            case .pcm: return false
            case .other(let code): return CodecTable.row(code: code, audio: true) != nil
            }
        case .video(let video):
            switch video.codec {
            case .h264: return true
            case .raw: return false
            case .other(let code): return CodecTable.row(code: code, audio: false) != nil
            }
        }
    }

    /// Creates one stream per non-`nil` format and writes the container's header.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/unsupportedFormat`` naming the track, codec and container
    ///   for a track the container cannot take; ``/MediaCore/MediaError/Code/invalidData`` for H.264
    ///   without parameter sets; ``/MediaCore/MediaError/Code/invalidArgument`` when streams were
    ///   created already; ``/MediaCore/MediaError/Code/stageFinished`` after ``finish()``.
    public func begin(tracks formats: [MediaFormat?]) throws {
        try begin(formats, timescales: formats.map { _ in nil }, priming: formats.map { _ in 0 })
    }

    /// Like ``begin(tracks:)``, with each track's time base taken from its first sample's timescale
    /// where the container allows it (MP4/MOV take any; MPEG-TS, FLV and Matroska impose their own):
    /// the timestamps are then written as they are, and a remux keeps the input's time base, as the
    /// ffmpeg CLI's `-c copy` does. A ``/MediaCore/MediaGraph`` calls this one.
    public func begin(firstSamples: [MediaSample?]) throws {
        // The finer of the decode time's and the duration's timescales (a first time of zero may be
        // written at timescale 1); below 1000 ticks a second, the default hint serves better.
        let timescales = firstSamples.map { sample -> Int32? in
            guard let timing = sample?.timing else { return nil }
            let scales = [timing.effectiveDecodeTime, timing.duration].filter(\.isNumeric).map(\.timescale)
            guard let finest = scales.max(), finest >= 1000 else { return nil }
            return finest
        }
        try begin(
            firstSamples.map { $0?.format }, timescales: timescales, priming: firstSamples.map { $0?.trimAtStart ?? 0 })
    }

    private func begin(_ formats: [MediaFormat?], timescales: [Int32?], priming: [Int]) throws {
        guard !isClosed else { throw MediaError.stageFinished(name) }
        guard context.raw.pointee.nb_streams == 0 else {
            throw MediaError(.invalidArgument, "\(name).begin(tracks:) was called twice")
        }
        try openStreams(formats, timescales: timescales, priming: priming)
    }

    /// Writes one sample of track `track`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidData`` with the sample's index in its track for a
    ///   sample without a presentation time, whose decode time goes backwards (or repeats, where the
    ///   container forbids it) or whose presentation time is before its decode time;
    ///   ``/MediaCore/MediaError/Code/formatMismatch`` for a codec other than the track's;
    ///   ``/MediaCore/MediaError/Code/invalidArgument`` before ``begin(tracks:)`` wrote the header;
    ///   ``/MediaCore/MediaError/Code/stageFinished`` after ``finish()``; the output's errors. After an
    ///   error, ``finish()`` still completes the file.
    public func write(_ sample: MediaSample, track index: Int) throws {
        guard !isClosed else { throw MediaError.stageFinished(name) }
        guard headerWritten, tracks.indices.contains(index), let track = tracks[index] else {
            throw MediaError(
                .invalidArgument,
                "\(name) has no track \(index) (tracks given to begin: \(tracks.count), empty ones have none; header written: \(headerWritten))"
            )
        }
        try writePacket(sample, track: track, trackIndex: index)
        samplesWritten += 1
    }

    /// Writes the trailer (the index of MP4/MOV, the cues of Matroska), adds the gapless tag where it
    /// applies, flushes and closes the output; also after an error, when the header was written.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/stageFinished`` when the output is closed already; the
    ///   output's and libavformat's errors.
    public func finish() throws {
        guard !isClosed else { throw MediaError.stageFinished(name) }
        isClosed = true
        var failure: MediaError?
        if headerWritten {
            do throws(MediaError) {
                try destination.writeTrailer(context, rewritesMovie: rewritesMovie)
            } catch { failure = error }
        }
        finalSize = destination.close(
            after: &failure, rewritesMovie: rewritesMovie, gaplessTag: rewritesMovie ? gaplessTag : nil)
        if let failure { throw failure }
    }
}

@available(*, unavailable) extension ContainerMuxer: Sendable {}

extension ContainerMuxer {
    /// One stream and its bookkeeping.
    fileprivate final class Track {
        let format: MediaFormat
        let stream: UnsafeMutablePointer<AVStream>
        /// The stream's time base after the header (the muxer may have changed the hint).
        var timeBase = AVRational(num: 1, den: 1)
        var lastDTS: Int64?
        var count: Int64 = 0
        /// AAC gapless bookkeeping: priming, valid frames and padding so far.
        var priming: Int64 = 0
        var validFrames: Int64 = 0
        var remainder: Int64 = 0

        init(format: MediaFormat, stream: UnsafeMutablePointer<AVStream>) {
            self.format = format
            self.stream = stream
        }

        var isAAC: Bool { format.audio?.codec == .aac }
    }

    /// The codecs FFmpeg 5.1's MPEG-TS muxer gives a stream type (or, for Opus, AC-3 and E-AC-3, a
    /// registration descriptor) that demuxers read back (`mpegtsenc.c`, `get_dvb_stream_type`).
    private static let mpegTSCodecs: Set<UInt32> = Set(
        [
            AV_CODEC_ID_MPEG1VIDEO, AV_CODEC_ID_MPEG2VIDEO, AV_CODEC_ID_MPEG4, AV_CODEC_ID_H264, AV_CODEC_ID_HEVC,
            AV_CODEC_ID_CAVS, AV_CODEC_ID_DIRAC, AV_CODEC_ID_VC1, AV_CODEC_ID_MP2, AV_CODEC_ID_MP3, AV_CODEC_ID_AAC,
            AV_CODEC_ID_AAC_LATM, AV_CODEC_ID_AC3, AV_CODEC_ID_EAC3, AV_CODEC_ID_DTS, AV_CODEC_ID_TRUEHD,
            AV_CODEC_ID_OPUS, AV_CODEC_ID_S302M
        ].map(\.rawValue))

    private func openStreams(_ formats: [MediaFormat?], timescales: [Int32?], priming: [Int]) throws(MediaError) {
        let ctx = context.raw
        var opened: [Track?] = []
        for (index, format) in formats.enumerated() {
            guard let format else {
                opened.append(nil)
                continue
            }
            let mapping = try ContainerCodec(format: format, track: index, container: self.format)
            // 1: supported, 0: not supported, negative: the muxer keeps no list (MPEG-TS); it then decides
            // in avformat_write_header.
            guard avformat_query_codec(ctx.pointee.oformat, mapping.id, FF_COMPLIANCE_NORMAL) != 0 else {
                throw MediaError(
                    .unsupportedFormat, "track \(index) (\(format)): \(self.format) cannot carry \(mapping.displayName)"
                )
            }
            // FFmpeg 5.1's MPEG-TS muxer keeps no list: a codec without a stream type of its own (VP9, AV1,
            // FLAC, ...) is written as private data (stream type 0x06) that no demuxer reads back as that
            // codec. Only the codecs it gives a stream type or a registration descriptor are taken.
            if self.format == .mpegTS, !Self.mpegTSCodecs.contains(mapping.id.rawValue) {
                throw MediaError(
                    .unsupportedFormat,
                    "track \(index) (\(format)): mpegts cannot carry \(mapping.displayName) (FFmpeg 5.1's muxer would write it as private data no demuxer reads back); use Matroska, WebM or MP4"
                )
            }
            guard let stream = avformat_new_stream(ctx, nil) else {
                throw MediaError(
                    .outOfMemory, "cannot add a stream for track \(index)", ffmpegCall: "avformat_new_stream")
            }
            try mapping.configure(
                stream, timescale: timescales.indices.contains(index) ? timescales[index] : nil,
                priming: priming.indices.contains(index) ? priming[index] : 0)
            opened.append(Track(format: format, stream: stream))
        }
        tracks = opened
        let streams = opened.compactMap { $0 }
        guard !streams.isEmpty else { return }  // every track ended empty: finish closes an empty output

        let aacTracks = streams.filter(\.isAAC).count
        if options.flushInterval != nil {
            if format == .matroska || format == .webm {
                try check(
                    av_opt_set_int(ctx.pointee.priv_data, "cluster_time_limit", 1_000, 0), calling: "av_opt_set_int")
            }
        }
        let audioOnly = streams.allSatisfy { $0.format.audio != nil }
        if format.isISOBaseMedia {
            var flags: [String] = []
            if options.fragmented {
                flags = ["frag_keyframe", "empty_moov", "default_base_moof"]
            } else if aacTracks == 1 {
                rewritesMovie = true  // the iTunSMPB tag; the file rewrite also gives fast start
            } else if destination.movesMovieToFront {
                flags = ["faststart"]
            }
            if options.fragmented {
                // Each fragment reaches the output when it is cut (the mov muxer keeps the fragment's
                // samples to itself until then, so this flushes once per fragment): libavformat's file
                // protocol otherwise holds up to 256 KiB, which a crash would lose.
                ctx.pointee.flush_packets = 1
            }
            if options.fragmented, !streams.contains(where: { $0.format.video != nil }) {
                // frag_keyframe cuts at video keyframes only: audio-only fragments last one second.
                try check(
                    av_opt_set_int(ctx.pointee.priv_data, "frag_duration", 1_000_000, 0), calling: "av_opt_set_int")
            }
            if !flags.isEmpty {
                try check(
                    av_opt_set(ctx.pointee.priv_data, "movflags", "+" + flags.joined(separator: "+"), 0),
                    calling: "av_opt_set")
            }
            if audioOnly, !options.fragmented, let rate = streams.first?.format.audio?.sampleRate,
                streams.allSatisfy({ $0.format.audio?.sampleRate == rate })
            {
                // The edit list's duration in samples, exactly.
                try check(
                    av_opt_set_int(ctx.pointee.priv_data, "movie_timescale", Int64(rate), 0), calling: "av_opt_set_int")
            }
        }
        if format == .mpegTS, let delay = options.muxDelay {
            // libavformat's `max_delay` (the CLI's `-muxdelay`), in microseconds.
            let (seconds, attoseconds) = delay.components
            ctx.pointee.max_delay = Int32(clamping: seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        }
        try destination.configure(context)
        let code = avformat_write_header(ctx, nil)
        if code < 0, let error = destination.headerError(code: code) { throw error }
        if code < 0 {
            throw MediaError(
                .unsupportedFormat,
                "the \(format) muxer refused the tracks (\(streams.map { "\($0.format)" }.joined(separator: ", "))): \(FFmpeg.describe(code))",
                ffmpegCall: "avformat_write_header", ffmpegCode: code)
        }
        headerWritten = true
        for track in streams { track.timeBase = track.stream.pointee.time_base }
    }

    /// An H.264 sample as ``/MediaBitstream/AVCCParser`` reads it, the walk `AnnexBMuxer` and
    /// ``H264Decoder`` share: a length prefix past the end is refused (``/MediaCore/MediaError/Code/truncated``
    /// with its byte offset and the sample's index), zero-length NAL units are dropped (as FFmpeg's
    /// `h264_mp4toannexb` drops them: the rewritten bytes are returned), and for a sample without any
    /// the result is `nil`: its bytes are written as they are (by reference when they are a demuxed
    /// packet's, see `PacketSlot.sharedBuffer(for:)`).
    private static func checkedAVCC(
        _ data: UnsafeRawBufferPointer, trackIndex: Int, sampleIndex: Int64
    ) throws(MediaError) -> [UInt8]? {
        do {
            var parser = try AVCCParser()
            while try parser.next(in: data) != nil {}
            guard parser.skippedEmptyNALUnits > 0 else { return nil }
            var rewrite = try AVCCParser()
            return try H264Bitstream.avcc(try rewrite.all(in: data).map { Array(data[$0.range]) })
        } catch {
            var failure = error
            failure.message = "H.264 sample of track \(trackIndex): " + failure.message
            failure.sampleIndex = sampleIndex
            throw failure
        }
    }

    /// Gives ``packet`` a pooled buffer of `size` bytes to fill, and returns them.
    private func payload(count size: Int, _ trackIndex: Int, _ index: Int64) throws(MediaError)
        -> UnsafeMutablePointer<UInt8>
    {
        guard size <= Int(Int32.max) - Int(AV_INPUT_BUFFER_PADDING_SIZE) else {
            throw MediaError(
                .invalidArgument,
                "sample of track \(trackIndex) has \(count: size, "byte"), more than a packet can hold",
                sampleIndex: index)
        }
        return try packetBuffers.attach(to: packet, count: size)
    }

    /// `AV_PKT_DATA_SKIP_SAMPLES` side data on `pkt` saying that its last `frames` frames are padding: the
    /// Matroska muxer writes it as the block's `DiscardPadding`, as `ffmpeg -c copy` does for Opus.
    private func attachDiscardPadding(
        _ frames: Int, to pkt: UnsafeMutablePointer<AVPacket>, _ trackIndex: Int, _ sampleIndex: Int64
    ) throws(MediaError) {
        guard let data = av_packet_new_side_data(pkt, AV_PKT_DATA_SKIP_SAMPLES, 10) else {
            av_packet_unref(pkt)
            throw MediaError(
                .outOfMemory, "cannot attach the end trim of track \(trackIndex)", sampleIndex: sampleIndex,
                ffmpegCall: "av_packet_new_side_data")
        }
        let discard = UInt32(clamping: frames)
        for i in 0..<10 { data[i] = 0 }  // skip 0 frames at the start; reasons 0
        for i in 0..<4 { data[4 + i] = UInt8(truncatingIfNeeded: discard >> (8 * UInt32(i))) }
    }

    /// Gives ``packet`` `buffer` (a new reference to a demuxed packet's buffer, now the packet's), whose
    /// payload is `bytes`.
    private func attach(_ buffer: UnsafeMutablePointer<AVBufferRef>, bytes: UnsafeRawBufferPointer) {
        packet.raw.pointee.buf = buffer  // unreferenced by av_packet_unref, as a pooled one
        packet.raw.pointee.data = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        packet.raw.pointee.size = Int32(bytes.count)
    }

    private func writePacket(_ sample: MediaSample, track: Track, trackIndex: Int) throws(MediaError) {
        let index = track.count
        guard Self.sameCodec(sample.format, track.format) else {
            throw MediaError(
                .formatMismatch, "\(name) track \(trackIndex) is \(track.format) but was given \(sample.format)",
                sampleIndex: index)
        }
        let timing = sample.timing
        let tb = track.timeBase
        guard let pts = Self.ticks(timing.presentationTime, tb), let dts = Self.ticks(timing.effectiveDecodeTime, tb)
        else {
            throw MediaError(
                .invalidData,
                "sample of track \(trackIndex) has no usable time (pts \(timing.presentationTime), dts \(timing.decodeTime))",
                sampleIndex: index)
        }
        if let last = track.lastDTS {
            let strict = (context.raw.pointee.oformat.pointee.flags & AVFMT_TS_NONSTRICT) == 0
            if dts < last || (strict && dts == last) {
                throw MediaError(
                    .invalidData,
                    "decode time \(timing.effectiveDecodeTime) of track \(trackIndex) is \(dts < last ? "before" : "the same as") the previous sample's (\(dts) ≤ \(last) in time base \(tb.num)/\(tb.den))",
                    sampleIndex: index)
            }
        }
        guard pts >= dts else {
            throw MediaError(
                .invalidData,
                "presentation time \(timing.presentationTime) of track \(trackIndex) is before its decode time \(timing.effectiveDecodeTime)",
                sampleIndex: index)
        }
        var duration = timing.duration
        if let audio = track.format.audio, audio.pcm == nil {
            let frames = Int64(max(sample.frameCount, 0))
            let start = Int64(max(0, sample.trimAtStart))
            let end = Int64(max(0, sample.trimAtEnd))
            track.priming += start
            track.remainder += end
            track.validFrames += max(0, frames - start - end)
            if format.isISOBaseMedia || format == .ogg, end > 0, frames > end {
                // The edit list (MP4) or the last page's granule position (Ogg) ends where the valid
                // frames end: the last packet lasts only its valid part.
                duration = MediaTime(value: frames - end, timescale: Int32(clamping: audio.sampleRate))
            }
        }
        let ticks = Self.ticks(duration, tb) ?? 0

        let isH264 = track.format.video?.codec == .h264
        try sample.withUnsafeBytes { (bytes) throws(MediaError) in
            let rewritten = isH264 ? try Self.checkedAVCC(bytes, trackIndex: trackIndex, sampleIndex: index) : nil
            if rewritten == nil, let slot = sample.memoryOwner as? PacketSlot,
                let buffer = slot.sharedBuffer(for: bytes)
            {
                // A demuxed packet passed through unchanged: its buffer by reference, not a copy.
                attach(buffer, bytes: bytes)
            } else if let rewritten {
                let payload = try payload(count: rewritten.count, trackIndex, index)
                payload.update(from: rewritten, count: rewritten.count)
            } else if let base = bytes.baseAddress {
                let payload = try payload(count: bytes.count, trackIndex, index)
                payload.update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
            } else {
                _ = try payload(count: 0, trackIndex, index)
            }
        }
        let pkt = packet.raw
        pkt.pointee.pts = pts
        pkt.pointee.dts = dts
        pkt.pointee.duration = max(0, ticks)
        pkt.pointee.stream_index = track.stream.pointee.index
        pkt.pointee.flags = sample.flags.contains(.keyframe) ? AV_PKT_FLAG_KEY : 0
        if sample.trimAtEnd > 0, !track.isAAC, track.format.audio != nil, format == .matroska || format == .webm {
            try attachDiscardPadding(sample.trimAtEnd, to: pkt, trackIndex, index)
        }
        let code = av_interleaved_write_frame(context.raw, pkt)
        av_packet_unref(pkt)
        if code < 0 { throw destination.packetError(code: code, trackIndex: trackIndex, sampleIndex: index) }
        track.lastDTS = dts
        track.count += 1
        if let interval = options.flushInterval, let pb = context.raw.pointee.pb {
            let time = timing.effectiveDecodeTime.seconds ?? 0
            if sample.flags.contains(.keyframe) || lastFlush.map({ time - $0 >= Self.seconds(interval) }) ?? true {
                avio_flush(pb)
                lastFlush = time
            }
        }
    }

    /// `duration` in seconds.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `time` in ticks of `base`, rounded to nearest (ties away from zero), exactly (128-bit):
    /// value × den / (timescale × num); `nil` for a time that is not numeric or does not fit.
    static func ticks(_ time: MediaTime, _ base: AVRational) -> Int64? {
        guard time.isNumeric, base.num > 0, base.den > 0 else { return nil }
        let numerator = Int128(time.value) * Int128(base.den)
        let denominator = Int128(time.timescale) * Int128(base.num)
        let doubled = numerator * 2 + (numerator < 0 ? -denominator : denominator)
        return Int64(exactly: doubled / (2 * denominator))
    }

    /// Whether two formats are the same codec (parameters may differ).
    static func sameCodec(_ a: MediaFormat, _ b: MediaFormat) -> Bool {
        switch (a, b) {
        case (.audio(let x), .audio(let y)): return x.codec == y.codec
        case (.video(let x), .video(let y)): return x.codec == y.codec
        default: return false
        }
    }

    /// The iTunSMPB value for the one AAC track, or `nil` when it had no priming and no padding.
    private var gaplessTag: String? {
        guard let track = tracks.compactMap({ $0 }).first(where: \.isAAC), track.priming > 0 || track.remainder > 0
        else { return nil }
        return MovieRewriter.iTunSMPB(
            priming: track.priming, remainder: track.remainder, validFrames: track.validFrames)
    }
}
extension ContainerMuxer: SentByteCounting {}
