internal import CMediaFFmpeg
import MediaBitstream
import MediaCore

/// How a stream's packets become samples in their canonical form (see ``ContainerDemuxer``).
enum PacketForm: Equatable {
    /// AAC: raw access units as they are (MP4, MOV, MKV, FLV), or with their ADTS header stripped
    /// (MPEG-TS, `.aac`: the stream has no AudioSpecificConfig in extradata).
    case aac(adts: Bool)
    /// H.264 in AVCC with NAL unit lengths of `lengthSize` bytes (rewritten to 4 when not 4).
    case h264AVCC(lengthSize: Int)
    /// H.264 in Annex-B (MPEG-TS, `.h264`): converted to AVCC, parameter sets taken out.
    case h264AnnexB
    /// Linear PCM: values of `swapBytes` bytes reversed (big-endian input), or signed 8-bit made
    /// unsigned.
    case pcm(swapBytes: Int, signedToUnsigned: Bool)
    /// Handed on untouched.
    case passthrough
    /// Subtitles, data, codecs without a description: listed, not read.
    case unsupported
}

/// What the demuxer knows about one stream from its `AVStream` and `AVCodecParameters`.
struct ContainerStreamLayout {
    var stream: ContainerDemuxer.Stream
    var form: PacketForm
    /// The stream's time base as `numerator / denominator` seconds per tick.
    var timeBase: (numerator: Int64, denominator: Int64)
    /// For audio, frames per second; 0 otherwise.
    var sampleRate: Int
    /// For compressed audio, the frames one packet decodes to when the codec fixes it (1024 for AAC-LC,
    /// 1152 for MP3); 0 when it varies.
    var framesPerPacket: Int
    /// For compressed audio whose packets vary, the frames a full packet or block decodes to as Core
    /// Audio's `mFramesPerPacket` says it (ALAC's frame length, 64 for IMA4, an IMA WAV block's
    /// frames, 1 for A-law and µ-law), or 0: what a packet without a duration is counted as.
    var nominalFramesPerPacket = 0
    /// `AVCodecParameters.block_align`: for block codecs (IMA, A-law, µ-law) the bytes of one block
    /// of ``nominalFramesPerPacket`` frames; 0 when the codec has none.
    var blockAlign = 0
    /// For PCM, bytes per frame (all channels).
    var bytesPerFrame: Int
    /// For audio, the encoder's priming as the container declares it apart from packet side data
    /// (`AVCodecParameters.initial_padding`: Matroska's `CodecDelay`); 0 when it does not.
    var initialPadding: Int
    /// Whether the frames of a packet are read from its Opus TOC byte (Opus packets last 2.5 to 120 ms,
    /// and Ogg shortens the last packet's duration to the frames that play).
    var isOpus = false
    /// For video, the frames a decoder holds back for reordering (`AVCodecParameters.video_delay`,
    /// `has_b_frames` once the stream was probed).
    var videoDelay = 0

    /// Describes `stream`.
    init(_ avStream: UnsafeMutablePointer<AVStream>, index: Int) {
        let s = avStream.pointee
        let tb = s.time_base
        timeBase = (Int64(tb.num), Int64(tb.den))
        let tbTime = { (ticks: Int64) -> MediaTime in Self.time(ticks, timeBase: (Int64(tb.num), Int64(tb.den))) }
        var format: MediaFormat? = nil
        var form = PacketForm.unsupported
        var codecName = "unknown"
        var isAudio = false
        var isVideo = false
        sampleRate = 0
        framesPerPacket = 0
        bytesPerFrame = 0
        initialPadding = 0
        if let parameters = s.codecpar {
            let p = parameters.pointee
            // The codec descriptor's name, "unknown" without one (as ffprobe prints codec_name).
            codecName = avcodec_descriptor_get(p.codec_id)?.pointee.name.map { String(cString: $0) } ?? "unknown"
            let extradata: [UInt8] =
                p.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(0, p.extradata_size)))) } ?? []
            isAudio = p.codec_type == AVMEDIA_TYPE_AUDIO
            isVideo = p.codec_type == AVMEDIA_TYPE_VIDEO
            if isAudio {
                let described = Self.audio(p, extradata: extradata)
                format = described.format.map { .audio($0) }
                form = described.form
                sampleRate = Int(p.sample_rate)
                framesPerPacket = described.fixedFrames
                nominalFramesPerPacket = described.format?.framesPerPacket ?? 0
                blockAlign = Int(max(0, p.block_align))
                bytesPerFrame = described.format?.bytesPerFrame ?? 0
                initialPadding = Int(max(0, p.initial_padding))
                isOpus = p.codec_id == AV_CODEC_ID_OPUS
            } else if isVideo {
                let described = Self.video(p, stream: s, extradata: extradata)
                format = described.format.map { .video($0) }
                form = described.form
                videoDelay = Int(max(0, p.video_delay))
            }
        }
        if format == nil { form = .unsupported }
        self.form = form
        stream = ContainerDemuxer.Stream(
            index: index, format: format, codecName: codecName,
            duration: s.duration == mp_nopts_value() ? .invalid : tbTime(s.duration),
            packetCount: s.nb_frames > 0 ? Int(s.nb_frames) : nil,
            isAudio: isAudio, isVideo: isVideo)
    }

    /// `ticks` of `timeBase` as a time: exact, or ``/MediaCore/MediaTime/invalid`` for `AV_NOPTS_VALUE` and for
    /// what does not fit.
    static func time(_ ticks: Int64, timeBase: (numerator: Int64, denominator: Int64)) -> MediaTime {
        guard ticks != mp_nopts_value(), timeBase.numerator > 0, timeBase.denominator > 0,
            let scale = Int32(exactly: timeBase.denominator)
        else { return .invalid }
        let (value, overflow) = ticks.multipliedReportingOverflow(by: timeBase.numerator)
        return overflow ? .invalid : MediaTime(value: value, timescale: scale)
    }

    func time(_ ticks: Int64) -> MediaTime { Self.time(ticks, timeBase: timeBase) }

    /// `ticks` of the time base as a whole number of audio frames, or `nil` when it is not one.
    func frames(_ ticks: Int64) -> Int? {
        guard sampleRate > 0, ticks != mp_nopts_value(), timeBase.numerator > 0, timeBase.denominator > 0 else {
            return nil
        }
        let product = Int128(ticks) * Int128(timeBase.numerator) * Int128(sampleRate)
        guard product % Int128(timeBase.denominator) == 0 else { return nil }
        return Int(exactly: product / Int128(timeBase.denominator))
    }

    // MARK: - Audio

    private static func channelLayout(_ p: AVCodecParameters) -> ChannelLayout {
        let count = Int(p.ch_layout.nb_channels)
        if p.ch_layout.order == AV_CHANNEL_ORDER_NATIVE, p.ch_layout.u.mask.nonzeroBitCount == count, count > 0 {
            return ChannelLayout(mask: p.ch_layout.u.mask)
        }
        return .default(channelCount: count)
    }

    /// The stream's format, how its packets become samples, and the frames every packet decodes to
    /// when the codec fixes that (else 0).
    private static func audio(_ p: AVCodecParameters, extradata: [UInt8]) -> (
        format: AudioFormat?, form: PacketForm, fixedFrames: Int
    ) {
        let rate = Int(p.sample_rate)
        let layout = channelLayout(p)
        guard rate > 0, layout.channelCount > 0 else { return (nil, .unsupported, 0) }
        let frameSize = Int(max(0, p.frame_size))
        if p.codec_id == AV_CODEC_ID_AAC {
            if !extradata.isEmpty {
                let format = AudioFormat(
                    codec: .aac, sampleRate: rate, channelLayout: layout,
                    framesPerPacket: frameSize > 0 ? frameSize : 1024,
                    magicCookie: extradata)
                return (format, .aac(adts: false), format.framesPerPacket)
            }
            // No AudioSpecificConfig: ADTS packets (MPEG-TS, .aac). Describe the stream from what
            // libavformat's parser found (profile, rate, channels); the samples carry the one built
            // from their first ADTS header.
            let objectType = p.profile >= 0 ? Int(p.profile) + 1 : 2  // FF_PROFILE_AAC_LOW (1) is object type 2
            let channelConfiguration = layout.channelCount == 8 ? 7 : min(layout.channelCount, 7)
            let asc = AudioSpecificConfig(
                objectType: objectType, samplingFrequencyIndex: AudioSpecificConfig.samplingFrequencyIndex(for: rate),
                sampleRate: rate, channelConfiguration: channelConfiguration
            ).bytes
            let format = AudioFormat(
                codec: .aac, sampleRate: rate, channelLayout: layout, framesPerPacket: frameSize > 0 ? frameSize : 1024,
                magicCookie: asc)
            return (format, .aac(adts: true), format.framesPerPacket)
        }
        if let pcm = pcmLayout(p.codec_id) {
            return (
                AudioFormat.pcm(pcm.format, sampleRate: rate, channelLayout: layout),
                .pcm(swapBytes: pcm.swap, signedToUnsigned: pcm.signed8), 1
            )
        }
        guard let code = audioFourCC(p.codec_id) ?? fourCC(tag: p.codec_tag) else { return (nil, .unsupported, 0) }
        let nominal = frameSize > 0 ? frameSize : nominalFramesPerPacket(p, extradata: extradata)
        let format = AudioFormat(
            codec: .other(fourCC: code), sampleRate: rate, channelLayout: layout, framesPerPacket: nominal,
            magicCookie: extradata)
        return (format, .passthrough, frameSize)
    }

    /// Core Audio's `mFramesPerPacket` for codecs whose packets FFmpeg does not give a fixed frame
    /// size: ALAC's frame length from its cookie, 64 for IMA4, the frames of an IMA WAV block
    /// (`1 + (block_align - 4 × channels) / (4 × channels) × 8`), 1 for A-law and µ-law; else 0.
    private static func nominalFramesPerPacket(_ p: AVCodecParameters, extradata: [UInt8]) -> Int {
        let channels = Int(p.ch_layout.nb_channels)
        switch p.codec_id {
        case AV_CODEC_ID_ALAC:
            guard let config = try? ALACMagicCookie.config(in: extradata) else { return 0 }
            return config.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        case AV_CODEC_ID_ADPCM_IMA_QT:
            return 64
        case AV_CODEC_ID_ADPCM_IMA_WAV:
            let header = 4 * channels
            guard p.bits_per_coded_sample == 4, channels > 0, Int(p.block_align) > header else { return 0 }
            return 1 + (Int(p.block_align) - header) / header * 8
        case AV_CODEC_ID_PCM_ALAW, AV_CODEC_ID_PCM_MULAW:
            return 1
        default:
            return 0
        }
    }

    /// The frames a packet of `byteCount` bytes without a duration is counted as: whole blocks of
    /// ``nominalFramesPerPacket`` frames for block codecs, else ``nominalFramesPerPacket``.
    func framesWithoutDuration(byteCount: Int) -> Int {
        blockAlign > 0 ? byteCount / blockAlign * nominalFramesPerPacket : nominalFramesPerPacket
    }

    /// The little-endian interleaved layout of FFmpeg's packed PCM codecs, and how to get there.
    private static func pcmLayout(_ id: AVCodecID) -> (format: PCMFormat, swap: Int, signed8: Bool)? {
        switch id {
        case AV_CODEC_ID_PCM_U8: return (PCMFormat(.u8), 0, false)
        case AV_CODEC_ID_PCM_S8: return (PCMFormat(.u8), 0, true)
        case AV_CODEC_ID_PCM_S16LE: return (PCMFormat(.s16), 0, false)
        case AV_CODEC_ID_PCM_S16BE: return (PCMFormat(.s16), 2, false)
        case AV_CODEC_ID_PCM_S24LE: return (PCMFormat(.s24), 0, false)
        case AV_CODEC_ID_PCM_S24BE: return (PCMFormat(.s24), 3, false)
        case AV_CODEC_ID_PCM_S32LE: return (PCMFormat(.s32), 0, false)
        case AV_CODEC_ID_PCM_S32BE: return (PCMFormat(.s32), 4, false)
        case AV_CODEC_ID_PCM_F32LE: return (PCMFormat(.f32), 0, false)
        case AV_CODEC_ID_PCM_F32BE: return (PCMFormat(.f32), 4, false)
        case AV_CODEC_ID_PCM_F64LE: return (PCMFormat(.f64), 0, false)
        case AV_CODEC_ID_PCM_F64BE: return (PCMFormat(.f64), 8, false)
        default: return nil
        }
    }

    /// Core Audio's `mFormatID` for FFmpeg's codec `id` (``CodecTable``).
    private static func audioFourCC(_ id: AVCodecID) -> UInt32? { CodecTable.row(id: id, audio: true)?.code.rawValue }

    // MARK: - Video

    private static func video(_ p: AVCodecParameters, stream s: AVStream, extradata: [UInt8]) -> (
        format: VideoFormat?, form: PacketForm
    ) {
        let width = Int(p.width)
        let height = Int(p.height)
        // The average rate when the container gives one, else the base rate (closures typed: an untyped
        // chain here took the type checker 8 s).
        let rates: [AVRational] = [s.avg_frame_rate, s.r_frame_rate]
        let given: AVRational? = rates.first { (r: AVRational) -> Bool in r.num > 0 && r.den > 0 }
        let rate: FrameRate? = given.flatMap { (r: AVRational) -> FrameRate? in
            FrameRate.reduced(Int64(r.num), Int64(r.den))
        }
        let aspect =
            p.sample_aspect_ratio.num > 0 && p.sample_aspect_ratio.den > 0
            ? PixelAspectRatio(Int(p.sample_aspect_ratio.num), Int(p.sample_aspect_ratio.den)) : nil
        if p.codec_id == AV_CODEC_ID_H264 {
            var form = PacketForm.h264AnnexB
            var parameters = H264Parameters(sequenceParameterSets: [], pictureParameterSets: [])
            // Extradata is an avcC record when it starts with configurationVersion 1, else Annex-B
            // parameter sets (which start with a start code).
            if extradata.first == 1 {
                guard let record = try? AVCDecoderConfigurationRecord(parsing: extradata),
                    record.lengthSizeMinusOne != 2
                else {
                    // Unreadable, or 3-byte lengths (which ISO/IEC 14496-15 does not allow): no way to split
                    // the samples.
                    return (nil, .unsupported)
                }
                form = .h264AVCC(lengthSize: Int(record.lengthSizeMinusOne) + 1)
                parameters = H264Parameters(
                    sequenceParameterSets: record.sequenceParameterSets,
                    pictureParameterSets: record.pictureParameterSets)
            } else {
                parameters = H264Bitstream.parameterSets(in: H264Bitstream.annexBNALUnits(extradata)) ?? parameters
            }
            var format = VideoFormat.h264(width: width, height: height, frameRate: rate, parameters: parameters)
            format.pixelAspectRatio = aspect
            return (format, form)
        }
        guard let code = videoFourCC(p.codec_id) ?? fourCC(tag: p.codec_tag) else { return (nil, .unsupported) }
        var format = VideoFormat(
            codec: .other(fourCC: code), width: width, height: height, frameRate: rate, pixelAspectRatio: aspect)
        format.codecConfiguration = extradata
        // VP9 has no extradata: its `vpcC`, from the parameters the stream's first frames gave.
        if p.codec_id == AV_CODEC_ID_VP9, extradata.isEmpty { format.codecConfiguration = VP9Configuration.record(p) }
        return (format, .passthrough)
    }

    /// The QuickTime / ISO BMFF sample entry type for FFmpeg's codec `id` (``CodecTable``).
    private static func videoFourCC(_ id: AVCodecID) -> UInt32? { CodecTable.row(id: id, audio: false)?.code.rawValue }

    // MARK: - Four-character codes

    /// `"abcd"` as a big-endian four-character code (`'abcd'`).
    static func fourCC(_ text: StaticString) -> UInt32 { FourCC(text).rawValue }

    /// A container's codec tag (FFmpeg's `MKTAG`, first character in the low byte) as a big-endian
    /// four-character code, when it is four printable characters.
    static func fourCC(tag: UInt32) -> UInt32? { FourCC(tag: tag)?.rawValue }
}
