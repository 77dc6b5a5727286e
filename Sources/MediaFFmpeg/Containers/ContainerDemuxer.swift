internal import CMediaFFmpeg
import Glibc
public import MediaCore

/// Reads a container file (MP4, MOV, M4A, Matroska, MPEG-TS, FLV, MP3, WAV, AIFF, CAF, ADTS, raw
/// H.264, ...) and hands out each stream's packets as a ``/MediaCore/MediaSource``: `AVAssetReader`
/// with passthrough outputs, or GStreamer's demuxers with one src pad per stream.
///
/// ```swift
/// let demuxer = try ContainerDemuxer(path: "movie.mp4")
/// let video = try demuxer.source(stream: demuxer.firstVideoStream!)   // AVCC access units
/// let audio = try demuxer.source(stream: demuxer.firstAudioStream!)   // raw AAC access units
/// while let frame = try video.next() { ... }   // audio packets read meanwhile wait in audio's queue
/// while let packet = try audio.next() { ... }
/// ```
///
/// - What it reads: whatever this FFmpeg build's libavformat opens, from a path or from bytes in memory
///   (through a custom `AVIOContext`). The streams are listed in ``streams`` with their
///   ``/MediaCore/MediaFormat``, FFmpeg's codec name, duration and, when the container says, packet count.
/// - What it hands out, per stream (``source(stream:)``): one sample per packet, in the forms the
///   library's other stages take:
///   - AAC: raw access units (an ADTS header, as in MPEG-TS, is stripped), format
///     ``/MediaCore/AudioFormat/aac(sampleRate:channelLayout:audioSpecificConfig:)`` with the
///     AudioSpecificConfig from the container (or, for ADTS, the 2 bytes the first header implies);
///     `frameCount` is the codec's frame size (1024); priming and end padding are the trims (see below).
///   - H.264: AVCC samples with 4-byte lengths (other lengths are rewritten), one access unit each,
///     `.keyframe` on the container's sync samples, format ``/MediaCore/VideoFormat/h264(width:height:frameRate:parameters:)``
///     with the SPS and PPS of the avcC record. Annex-B streams (MPEG-TS, `.h264`) are converted to
///     AVCC (each start code becomes a 4-byte length). Every NAL unit of the file stays in the
///     samples, in-band SPS, PPS and access unit delimiters included, so that a remux writes the
///     packets `ffmpeg -c copy` writes; the parameter sets also come from the extradata libavformat
///     extracted, and in-band ones that differ replace them in the format of the samples that follow;
///     `.keyframe` marks access units with an IDR slice.
///   - Linear PCM (`pcm_s16le`, `pcm_s24be`, `pcm_f32le`, `pcm_u8`, ...): interleaved little-endian
///     ``/MediaCore/AudioFormat/pcm(_:sampleRate:channelLayout:)`` samples, big-endian values byte-swapped
///     and signed 8-bit made unsigned, `frameCount` set.
///   - Any other audio or video codec: untouched packets with ``/MediaCore/AudioCodec/other(fourCC:)``
///     / ``/MediaCore/VideoCodec/other(fourCC:)`` and its Core Audio / QuickTime four-character code
///     (`.mp3`, `.mp2`, `alac`, `ima4`, `0x6D730011` for IMA ADPCM in WAV, `ulaw`, `alaw`, `flac`,
///     `opus`, `ac-3`, `hvc1`, `vp09`, `av01`, `mp4v`, ... or the container's own tag), the extradata
///     as ``/MediaCore/AudioFormat/magicCookie`` / ``/MediaCore/VideoFormat/codecConfiguration``, and
///     for audio `framesPerPacket` as Core Audio states it (the codec's frame size; for codecs whose
///     packets vary, ALAC's frame length, 64 for IMA4, an IMA WAV block's frames, 1 for A-law and
///     µ-law) and `frameCount` what the packet decodes to (from its duration; an ALAC packet in CAF,
///     which FFmpeg gives none, counts as a full frame length). ``AudioDecoder`` decodes these
///     samples. Subtitle and data streams, and codecs with no code, are listed with a `nil` format;
///     ``source(stream:)`` refuses them.
/// - Zero-copy: a packet the canonical form leaves as it is (AAC and other codecs in MP4, Matroska and
///   the like; little-endian PCM; H.264 with 4-byte AVCC lengths and no in-band SPS or PPS) is handed
///   out without a copy: the sample borrows libavformat's refcounted buffer
///   (``/MediaCore/MediaSample/borrowsMemory``), which lives as long as any copy of the sample does, on
///   any thread; a packet's buffer is reused only once no sample refers to it. ``ContainerMuxer`` gives
///   such a sample back to libavformat by reference, so a remux copies no payload. Rewritten packets
///   (big-endian PCM, ADTS, Annex-B H.264, other AVCC length sizes, packets with parameter sets) are
///   copies.
/// - Timing: presentation and decode time and duration exactly in the stream's time base (a timescale
///   of its denominator); a packet without a decode time gets its presentation time. A stream without
///   any time stamps (a raw `.h264`) is timed as the ffmpeg CLI times it for `-c copy`: decode order at
///   the packets' durations, starting `has_b_frames` frames before zero, presentation = decode time.
///   With B-frames those presentation times are decode-order placeholders, not the order the frames
///   are shown in (the ffmpeg CLI's `-c copy` writes them so); ``H264Decoder`` recognises them and
///   times its frames by decode time, as the CLI does.
/// - Priming: AAC (and MP3, Opus, ...) priming reaches the samples as ``/MediaCore/MediaSample/trimAtStart``
///   and end padding as ``/MediaCore/MediaSample/trimAtEnd``, from what FFmpeg 5.1 gives:
///   `AV_PKT_DATA_SKIP_SAMPLES` side data (on the first packet from an MP4 edit list, Ogg or a LAME tag,
///   spread over as many packets as it covers, so the ffmpeg CLI's AAC has its first packet, at −1024,
///   trimmed whole; discard padding at the end from Ogg and Matroska), else a negative first
///   presentation time in a sample-exact time base, else `initial_padding` (Matroska's `CodecDelay`);
///   and for MP4/MOV the last packet's shortened `stts` duration. So Σ frameCount − trims is the
///   length the container declares. (ffmpeg 5.1 reads no `iTunSMPB` tag, and its own decoding of MP4
///   drops the priming but keeps the end padding.)
///
/// Several sources of one demuxer share it, like a demuxer's src pads: ``StreamSource/next()`` on one
/// reads packets until one of its stream comes; packets of the other streams that have a source are
/// queued for them, packets of streams without one are dropped. A queue holds at most
/// ``queueLimit`` (4096 packets or 64 MiB): when one is full, reading for another stream throws
/// ``/MediaCore/MediaError/Code/queueFull`` naming the stream whose source is not being read (nothing is
/// lost; reading that source, or releasing it, lets reading go on).
///
/// Everything runs on the caller's thread; the demuxer and its sources are not `Sendable`. Errors name
/// the file. Backed by `avformat_open_input`, `avformat_find_stream_info`, `av_read_frame` and
/// `av_seek_frame`.
public final class ContainerDemuxer {
    /// How many packets and bytes may wait for one stream's source.
    public struct QueueLimit: Sendable, Hashable {
        /// At most this many packets.
        public var packets: Int
        /// At most this many bytes.
        public var bytes: Int

        /// A limit of `packets` packets and `bytes` bytes, whichever comes first.
        public init(packets: Int, bytes: Int) {
            self.packets = packets
            self.bytes = bytes
        }

        /// 4096 packets or 64 MiB.
        public static let standard = QueueLimit(packets: 4096, bytes: 64 << 20)
    }

    /// One stream of the container, as ``ContainerDemuxer/streams`` lists it.
    public struct Stream: Sendable, Hashable {
        /// The stream's index in the container (`AVStream.index`).
        public var index: Int
        /// What its samples are, or `nil` for a stream this library cannot describe (subtitles, data,
        /// an unknown codec).
        public var format: MediaFormat?
        /// FFmpeg's name of the codec: `aac`, `h264`, `mp3`, `pcm_s16le`, `mov_text`, ...
        public var codecName: String
        /// How long the stream lasts by the container's header, or ``/MediaCore/MediaTime/invalid``.
        public var duration: MediaTime
        /// The number of packets when the container says (`nb_frames`), else `nil`.
        public var packetCount: Int?
        /// Whether this is an audio stream.
        public var isAudio: Bool
        /// Whether this is a video stream.
        public var isVideo: Bool

        /// A stream description with every field given.
        public init(
            index: Int, format: MediaFormat?, codecName: String, duration: MediaTime, packetCount: Int?,
            isAudio: Bool, isVideo: Bool
        ) {
            self.index = index
            self.format = format
            self.codecName = codecName
            self.duration = duration
            self.packetCount = packetCount
            self.isAudio = isAudio
            self.isVideo = isVideo
        }
    }

    private let context: InputFormatContext
    private let packet: Packet
    private let layouts: [ContainerStreamLayout]
    /// What errors call the input: its path, or "in-memory input (N bytes)".
    let inputName: String
    /// The streams with a source, by index.
    private var readers: [Int: ContainerStreamReader] = [:]
    private var endOfInput = false
    /// A read error: thrown by every source once its queue is empty.
    private var failure: MediaError?
    /// Whether an I/O error from the protocol is the end of the input: SRT's, whose peer closing its
    /// socket reaches libavformat as `EIO` (set by ``init(url:options:)``).
    var closeIsEnd = false

    /// libavformat's name of the container format, e.g. `mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`,
    /// `mpegts`.
    public let formatName: String
    /// How long the whole container lasts, or ``/MediaCore/MediaTime/invalid`` when it does not say
    /// (microseconds, as libavformat gives it).
    public let duration: MediaTime
    /// When the container's first stream starts (microseconds, as libavformat gives it): 0 for most MP4
    /// files, often 1.4 s for MPEG-TS; ``/MediaCore/MediaTime/zero`` when it does not say. A time "into
    /// the file", as `ffmpeg -ss` and ``ImageGenerator`` take it, counts from here.
    public let startTime: MediaTime
    /// Every stream, in container order.
    public var streams: [Stream] { layouts.map(\.stream) }
    /// What the container's header claims that its samples contradict, found when it was opened: for
    /// MP4/MOV, an edit list that presents more than its track's samples hold (`editBeyondMedia`) or
    /// starts past their end (`editPastMediaEnd`), each a warning naming the track with the byte offset
    /// of its `elst`. What the samples hold is what is read, as libavformat reads it. A stream's
    /// ``StreamSource`` logs those about its stream to its ``StreamSource/logger``.
    public var diagnostics: [MediaDiagnostic] { findings.map(\.diagnostic) }
    /// ``diagnostics`` with the stream each is about.
    private(set) var findings: [MovieEditCheck.Finding] = []
    /// How many packets and bytes may wait for one stream's source before reading for another stream
    /// throws. Default ``QueueLimit/standard``.
    public var queueLimit = QueueLimit.standard
    /// What happens to a packet that cannot be made a sample (an ADTS header that does not fit its
    /// packet, a malformed AVCC length): `nil` (default), its stream's source throws the error; set, the
    /// packet is dropped, the error (naming the stream, with the packet's byte offset) is given to this
    /// closure on the reading thread, and reading goes on. A live input, where a lost network packet
    /// damages one sample, wants the second, as the ffmpeg CLI does ("corrupt input packet").
    public var onDamagedPacket: ((MediaError) -> Void)?

    /// Opens the file at `path`, probing its format. The path is a file's, never a URL: FFmpeg
    /// protocol prefixes (`http:`, `pipe:`, `concat:`) are not interpreted.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/io`` when the file cannot be opened (missing, unreadable),
    ///   ``/MediaCore/MediaError/Code/truncated`` when it is empty,
    ///   ``/MediaCore/MediaError/Code/invalidData`` when libavformat finds no format or a damaged header
    ///   (an MP4 without its `moov`); the message names the file. Backed by `avformat_open_input` and
    ///   `avformat_find_stream_info`.
    public convenience init(path: String) throws(MediaError) {
        FFmpeg.quietLogging()
        // An empty regular file is refused before libavformat sees it: for raw formats probed by the
        // extension (`.h264`) it would open with one stream and no packet.
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size == 0 {
            throw MediaError(.truncated, "cannot open '\(path)' as a container: it is empty").inStage(
                "ContainerDemuxer")
        }
        let context: InputFormatContext
        do throws(MediaError) {
            // "file:" so that the path is only ever a file: no "http:", "pipe:" or "concat:" protocol.
            context = try InputFormatContext(url: "file:" + path, io: nil, formatName: nil)
        } catch {
            throw Self.openError(error, input: "'\(path)'", hint: InputHint(path: path)).inStage("ContainerDemuxer")
        }
        do throws(MediaError) {
            try self.init(context: context, inputName: "'\(path)'")
        } catch {
            throw error.inStage("ContainerDemuxer")
        }
        if formatName.hasPrefix("mov") { findings = MovieEditCheck.diagnostics(path: path, stage: "ContainerDemuxer") }
    }

    /// Reads a container held in memory, probing its format unless `formatName` names it (a
    /// libavformat input format name: `mp4`, `matroska`, `mpegts`, `wav`, ...).
    ///
    /// - Throws: as ``init(path:)``, naming the input "in-memory input (N bytes)";
    ///   ``/MediaCore/MediaError/Code/invalidArgument`` for a format name libavformat does not know.
    ///   Backed by `avio_alloc_context` with read and seek callbacks over `bytes`.
    public convenience init(bytes: [UInt8], formatName: String? = nil) throws(MediaError) {
        FFmpeg.quietLogging()
        let name = "in-memory input (\(count: bytes.count, "byte"))"
        guard !bytes.isEmpty else {
            throw MediaError(.truncated, "cannot open \(name) as a container: it is empty").inStage("ContainerDemuxer")
        }
        let context: InputFormatContext
        do throws(MediaError) {
            let io = try InputIOContext(bytes: bytes)
            context = try InputFormatContext(url: nil, io: io, formatName: formatName)
        } catch {
            throw Self.openError(error, input: name, hint: InputHint(bytes: bytes)).inStage("ContainerDemuxer")
        }
        do throws(MediaError) {
            try self.init(context: context, inputName: name)
        } catch {
            throw error.inStage("ContainerDemuxer")
        }
        if self.formatName.hasPrefix("mov") {
            findings = MovieEditCheck.diagnostics(bytes: bytes, stage: "ContainerDemuxer")
        }
    }

    init(context: InputFormatContext, inputName: String) throws(MediaError) {
        self.context = context
        self.inputName = inputName
        packet = try Packet()
        let ctx = context.raw
        do throws(MediaError) {
            try check(avformat_find_stream_info(ctx, nil), calling: "avformat_find_stream_info", .invalidData)
        } catch {
            throw MediaError(
                error.code, "cannot read the streams of \(inputName): \(error.message)",
                ffmpegCall: error.ffmpegCall, ffmpegCode: error.ffmpegCode)
        }
        let c = ctx.pointee
        formatName = c.iformat.flatMap { $0.pointee.name.map { String(cString: $0) } } ?? "unknown"
        duration =
            c.duration == mp_nopts_value() || c.duration < 0
            ? .invalid : MediaTime(value: c.duration, timescale: 1_000_000)
        startTime = c.start_time == mp_nopts_value() ? .zero : MediaTime(value: c.start_time, timescale: 1_000_000)
        var layouts: [ContainerStreamLayout] = []
        for index in 0..<Int(c.nb_streams) {
            guard let stream = c.streams?[index] else {
                throw MediaError(
                    .invalidData,
                    "libavformat lists \(count: c.nb_streams, "stream") in \(inputName) but gives none for index \(index)"
                )
            }
            layouts.append(ContainerStreamLayout(stream, index: index))  // so layouts[i] is stream i
        }
        self.layouts = layouts
    }

    /// The index of the first audio stream, if any.
    public var firstAudioStream: Int? { layouts.first { $0.stream.isAudio }?.stream.index }
    /// The index of the first video stream, if any.
    public var firstVideoStream: Int? { layouts.first { $0.stream.isVideo }?.stream.index }

    /// A source of the samples of stream `index`, from where the demuxer is now on. Packets of this
    /// stream read before the source existed were dropped.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for an index that is no stream, or when
    ///   the stream already has a source (release it first); ``/MediaCore/MediaError/Code/unsupportedFormat``
    ///   for a stream without a format (subtitles, data, an unknown codec).
    public func source(stream index: Int) throws(MediaError) -> StreamSource {
        guard let layout = layouts.first(where: { $0.stream.index == index }) else {
            throw MediaError(.invalidArgument, "\(inputName) has no stream \(index) (it has \(layouts.count))")
        }
        guard let format = layout.stream.format, layout.form != .unsupported else {
            throw MediaError(
                .unsupportedFormat,
                "stream \(index) of \(inputName) is \(layout.stream.codecName), which ContainerDemuxer does not hand out as samples"
            )
        }
        guard readers[index] == nil else {
            throw MediaError(
                .invalidArgument,
                "stream \(index) of \(inputName) already has a source; release it before making another")
        }
        readers[index] = ContainerStreamReader(layout: layout, format: format)
        return StreamSource(demuxer: self, stream: layout.stream)
    }

    /// A source of stream `index` of the file at `path`, with a demuxer of its own that reads only that
    /// stream (the others are discarded: `AVStream.discard = AVDISCARD_ALL`).
    ///
    /// This is the form for a ``/MediaCore/MediaGraph`` branch: each branch owns its source outright, so
    /// branches can run on threads of their own and each reads at its own pace, with no queue between
    /// streams. It costs one more open of the file per stream; for MP4, MOV and Matroska the other
    /// streams' bytes are skipped, not read.
    public static func streamSource(path: String, stream index: Int) throws(MediaError) -> sending StreamSource {
        try streamSource(ContainerDemuxer(path: path), stream: index)
    }

    /// A source of stream `index` that takes `demuxer` over: the demuxer's other streams are discarded
    /// from then on, as in ``streamSource(path:stream:)``, but the file is not opened again.
    ///
    /// For a caller that opened the file to list its streams (one `avformat_find_stream_info`, which
    /// for a raw H.264 or an MPEG-TS input decodes the first pictures) and then wants a branch's
    /// source: hand over that demuxer for the first stream instead of opening the file once more.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` when a stream of `demuxer` already has
    ///   a source (its packets would stop), and as ``source(stream:)``.
    public static func streamSource(_ demuxer: sending ContainerDemuxer, stream index: Int) throws(MediaError)
        -> sending StreamSource
    {
        guard demuxer.readers.isEmpty else {
            throw MediaError(
                .invalidArgument,
                "\(demuxer.inputName) already has a source for stream \(demuxer.readers.keys.sorted()[0]); "
                    + "a demuxer handed over for one stream must have none")
        }
        let ctx = demuxer.context.raw.pointee
        for other in 0..<Int(ctx.nb_streams) where other != index {
            ctx.streams?[other]?.pointee.discard = AVDISCARD_ALL
        }
        return try demuxer.source(stream: index)
    }

    /// Moves every source to the keyframe at or before `time` (of the first video stream with a source,
    /// else of the first stream with a source): samples then continue from there, the first of each
    /// stream flagged ``/MediaCore/MediaSample/Flags/discontinuity``. What was queued is dropped. Where
    /// libavformat's search lands before a non-keyframe (formats without an index, such as MPEG-TS),
    /// video samples up to the next keyframe are dropped, so a video source always resumes on one.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a time that is not numeric or when
    ///   no stream has a source; libavformat's refusal (an input that cannot seek) as
    ///   ``/MediaCore/MediaError/Code/io``. Backed by `av_seek_frame` with `AVSEEK_FLAG_BACKWARD`.
    public func seek(to time: MediaTime) throws(MediaError) {
        guard time.isNumeric else { throw MediaError(.invalidArgument, "cannot seek \(inputName) to \(time)") }
        let selected = readers.keys.sorted()
        guard let target = selected.first(where: { layouts[$0].stream.isVideo }) ?? selected.first else {
            throw MediaError(.invalidArgument, "cannot seek \(inputName) before a stream has a source")
        }
        let tb = layouts[target].timeBase
        // time.value / time.timescale seconds in ticks of num/den seconds, rounded down.
        let exact = Int128(time.value) * Int128(tb.denominator)
        let divisor = Int128(time.timescale) * Int128(tb.numerator)
        var ticks = exact / divisor
        if exact % divisor != 0, exact < 0 { ticks -= 1 }
        guard let timestamp = Int64(exactly: ticks) else {
            throw MediaError(.invalidArgument, "cannot seek \(inputName) to \(time): out of range")
        }
        do throws(MediaError) {
            try check(
                av_seek_frame(context.raw, Int32(target), timestamp, AVSEEK_FLAG_BACKWARD), calling: "av_seek_frame",
                .io)
        } catch {
            throw MediaError(
                error.code, "cannot seek \(inputName) to \(time): \(error.message)", ffmpegCall: error.ffmpegCall,
                ffmpegCode: error.ffmpegCode)
        }
        for reader in readers.values { reader.reset() }
        endOfInput = false
        failure = nil
    }

    // MARK: - For StreamSource

    /// The next sample of stream `index`: from its queue, else read until one of it comes.
    func nextSample(stream index: Int) throws(MediaError) -> MediaSample? {
        guard let reader = readers[index] else { return nil }
        if let sample = try reader.dequeue() { return sample }
        return try read(until: index)?.sample
    }

    /// The next sample of any stream with a source, in the order of the input (`av_read_frame`'s), with
    /// the index of its stream; `nil` at the end of the input. Samples another source's `next()` queued
    /// come first, by stream index.
    ///
    /// This is the form for a caller that hands every stream's samples on as they come (into a queue per
    /// track, across a socket) rather than reading each stream at its own pace. Only streams with a
    /// source are read: make one per stream wanted with ``source(stream:)`` and keep it (a source released
    /// deselects its stream), then call this instead of the sources' `next()`.
    ///
    /// - Throws: as ``StreamSource/next()``.
    public func nextSample() throws(MediaError) -> (stream: Int, sample: MediaSample)? {
        for index in readers.keys.sorted() {
            if let sample = try readers[index]?.dequeue() { return (index, sample) }
        }
        return try read(until: nil)
    }

    /// Reads packets until one of stream `index` (of any stream with a source when `nil`) comes; the
    /// other selected streams' samples are queued for their sources.
    private func read(until index: Int?) throws(MediaError) -> (stream: Int, sample: MediaSample)? {
        while true {
            if let failure { throw failure }
            if endOfInput { return nil }
            for (other, waiting) in readers where other != index {
                guard waiting.queuedCount >= queueLimit.packets || waiting.queuedBytes >= queueLimit.bytes else {
                    continue
                }
                throw MediaError(
                    .queueFull,
                    "stream \(other)'s source of \(inputName) is not being read: \(count: waiting.queuedCount, "packet") "
                        + "(\(count: waiting.queuedBytes, "byte")) wait for it, the limit is \(count: queueLimit.packets, "packet") or "
                        + "\(count: queueLimit.bytes, "byte"); read that source too, or release it")
            }
            context.interrupt.map { $0.arm(seconds: $0.readTimeout) }
            let code = av_read_frame(context.raw, packet.raw)
            context.interrupt?.disarm()
            // A protocol interrupted may reach the demuxer as the end of the input (MPEG-TS says EOF).
            if let interrupt = context.interrupt,
                interrupt.isStopped || (code < 0 && (code == mp_averror_exit() || interrupt.timedOut))
            {
                if let error = interrupted(interrupt) {
                    failure = error
                    throw error
                }
                endOfInput = true
                if code >= 0 { av_packet_unref(packet.raw) }
                return nil
            }
            if code == mp_averror_eof() {
                endOfInput = true
                if let cut = truncation() {
                    failure = cut
                    throw cut
                }
                return nil
            }
            if code == mp_averror(EIO), closeIsEnd {
                endOfInput = true
                return nil
            }
            if code < 0 {
                let error = readError(code)
                failure = error
                throw error
            }
            defer { av_packet_unref(packet.raw) }
            let streamIndex = Int(packet.raw.pointee.stream_index)
            guard let target = readers[streamIndex] else { continue }  // not selected: dropped
            do throws(MediaError) {
                guard let sample = try target.sample(from: packet.raw) else { continue }
                if index == nil || streamIndex == index { return (streamIndex, sample) }
                target.enqueue(sample)
            } catch {
                let located = MediaError(
                    error.code, "stream \(streamIndex) of \(inputName): \(error.message)",
                    byteOffset: packet.raw.pointee.pos >= 0 ? packet.raw.pointee.pos : nil)
                if let onDamagedPacket {
                    onDamagedPacket(located)
                    continue
                }
                if index == nil || streamIndex == index { throw located }
                target.enqueue(located)
            }
        }
    }

    /// At the end of the input: ``/MediaCore/MediaError/Code/truncated`` when the container's index
    /// points past the end of the file (an MP4 cut inside `mdat`, which libavformat reads as a short
    /// last packet and then the end), else `nil`.
    private func truncation() -> MediaError? {
        let ctx = context.raw.pointee
        guard let pb = ctx.pb else { return nil }
        let size = avio_size(pb)
        guard size > 0 else { return nil }
        for index in 0..<Int(ctx.nb_streams) {
            guard let stream = ctx.streams?[index] else { continue }
            let count = avformat_index_get_entries_count(stream)
            guard count > 0, let last = avformat_index_get_entry(stream, count - 1) else { continue }
            let end = last.pointee.pos + Int64(max(0, last.pointee.size))
            if end > size {
                return MediaError(
                    .truncated,
                    "\(inputName) is cut short: its index puts stream \(index)'s last packet at bytes \(last.pointee.pos)..<\(end) "
                        + "but the input ends at \(size)", byteOffset: size)
            }
        }
        return nil
    }

    /// The error for `av_read_frame`'s `code`: ``/MediaCore/MediaError/Code/truncated`` when the input
    /// ended inside a packet (libavformat says "invalid data" for an MP4 cut inside `mdat`), else
    /// invalid data or I/O.
    private func readError(_ code: CInt) -> MediaError {
        if let failure = context.io?.failure {
            return MediaError(
                failure.code, "cannot read \(inputName): \(failure.message)", byteOffset: failure.byteOffset,
                ffmpegCall: failure.ffmpegCall, ffmpegCode: failure.ffmpegCode)
        }
        let atEnd = context.raw.pointee.pb.map { avio_feof($0) != 0 } ?? false
        let position = context.raw.pointee.pb.map { avio_tell($0) }
        if atEnd {
            return MediaError(
                .truncated, "\(inputName) ends inside a packet (cut short?): \(FFmpeg.describe(code))",
                byteOffset: position, ffmpegCall: "av_read_frame", ffmpegCode: code)
        }
        return MediaError(
            code == mp_averror_invaliddata() ? .invalidData : .io,
            "cannot read a packet of \(inputName): \(FFmpeg.describe(code))",
            byteOffset: position, ffmpegCall: "av_read_frame", ffmpegCode: code)
    }

    /// The current format of stream `index`'s samples.
    func currentFormat(stream index: Int) -> MediaFormat? { readers[index]?.format }

    /// Forgets stream `index`'s source: its queue is dropped, and its packets from now on too.
    func deselect(stream index: Int) {
        readers[index] = nil
    }

    // MARK: - Errors

    /// What is known about an input that failed to open, to say why in words.
    struct InputHint {
        var byteCount: Int?
        var exists = true
        /// The top-level ISO BMFF box types when the input starts like one (`ftyp` first).
        var topLevelBoxes: [String]?

        init(path: String) {
            guard let file = fopen(path, "rb") else {
                exists = errno != ENOENT
                return
            }
            defer { fclose(file) }
            var header = [UInt8](repeating: 0, count: 16)
            var boxes: [String] = []
            var offset: Int64 = 0
            while boxes.count < 64, fseeko(file, off_t(offset), SEEK_SET) == 0, fread(&header, 1, 16, file) >= 8 {
                guard let (type, size) = Self.box(header, at: offset) else { break }
                boxes.append(type)
                // A size read from the file: a box that claims to reach past 2^63 ends the walk.
                guard size >= 8, size <= Int64.max - offset else { break }
                offset += size
            }
            fseeko(file, 0, SEEK_END)
            byteCount = Int(ftello(file))
            if boxes.first == "ftyp" { topLevelBoxes = boxes }
        }

        init(bytes: [UInt8]) {
            byteCount = bytes.count
            var boxes: [String] = []
            var offset = 0
            while boxes.count < 64, bytes.count - offset >= 8 {
                let header = Array(bytes[offset..<min(bytes.count, offset + 16)])
                guard let (type, size) = Self.box(header, at: Int64(offset)) else { break }
                boxes.append(type)
                // A size read from the input: a box that claims to reach past Int.max ends the walk.
                guard size >= 8, size <= Int64(Int.max - offset) else { break }
                offset += Int(size)
            }
            if boxes.first == "ftyp" { topLevelBoxes = boxes }
        }

        /// The type and size of the box whose header is `header` (at least 8 bytes).
        private static func box(_ header: [UInt8], at offset: Int64) -> (String, Int64)? {
            guard header.count >= 8 else { return nil }
            let size32 = header[0..<4].reduce(Int64(0)) { $0 << 8 | Int64($1) }
            let type = String(
                decoding: header[4..<8].map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
            if size32 == 1 {
                guard header.count >= 16 else { return nil }
                let size64 = header[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                return (type, Int64(clamping: size64))
            }
            return (type, size32 == 0 ? Int64.max : size32)
        }

        /// Why the input could not be opened, in words, when the hint knows.
        var reason: String? {
            if !exists { return "the file does not exist" }
            if byteCount == 0 { return "it is empty" }
            if let boxes = topLevelBoxes, !boxes.contains("moov") {
                return
                    "it is an MP4/QuickTime file without a moov box (its index; cut short before it?), top-level boxes \(boxes.joined(separator: ", "))"
            }
            return nil
        }
    }

    /// `error` from opening, rewritten to name the input and say why.
    private static func openError(_ error: MediaError, input: String, hint: InputHint) -> MediaError {
        guard error.ffmpegCall == "avformat_open_input" else {
            return MediaError(
                error.code, "cannot open \(input): \(error.message)", ffmpegCall: error.ffmpegCall,
                ffmpegCode: error.ffmpegCode)
        }
        var code = error.code
        if !hint.exists
            || error.ffmpegCode.map({ $0 == mp_averror(ENOENT) || $0 == mp_averror(EACCES) || $0 == mp_averror(EISDIR) }
            ) == true
        {
            code = .io
        } else if hint.byteCount == 0 {
            code = .truncated
        }
        let because = hint.reason.map { "\($0) (\(error.message))" } ?? error.message
        return MediaError(
            code, "cannot open \(input) as a container: \(because)", ffmpegCall: error.ffmpegCall,
            ffmpegCode: error.ffmpegCode)
    }
}

@available(*, unavailable) extension ContainerDemuxer: Sendable {}
