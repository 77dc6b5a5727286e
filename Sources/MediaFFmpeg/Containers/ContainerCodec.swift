internal import CMediaFFmpeg
import MediaBitstream
import MediaCore

/// How a track's ``/MediaCore/MediaFormat`` becomes an `AVStream`'s codec parameters: the codec id, the
/// configuration record as `extradata`, the size or rate and channel layout.
struct ContainerCodec {
    let id: AVCodecID
    let format: MediaFormat
    let extradata: [UInt8]
    /// The codec as errors name it: `aac`, `h264`, `'hvc1'`.
    let displayName: String

    /// The sample entry type to write in MP4 and MOV (`'hvc1'` for HEVC), when not libavformat's default.
    private(set) var isoTag: FourCC?

    /// The mapping for track `track`'s format; throws ``/MediaCore/MediaError/Code/unsupportedFormat``
    /// naming the track, the codec and the container for raw media, video in M4A and unknown codes.
    init(format: MediaFormat, track: Int, container: ContainerFormat) throws(MediaError) {
        self.format = format
        func refuse(_ why: String) -> MediaError {
            MediaError(.unsupportedFormat, "track \(track) (\(format)) cannot go into \(container): \(why)")
        }
        switch format {
        case .audio(let audio):
            displayName = audio.codec.description
            switch audio.codec {
            case .pcm:
                throw refuse("\(audio.codec) is raw PCM; encode it first (AACEncoder)")
            case .aac:
                guard !audio.magicCookie.isEmpty else {
                    throw refuse("the AAC format has no AudioSpecificConfig (magic cookie)")
                }
                // Refused here, with the reason, rather than by libavformat (ADTSMuxer and CAFMuxer check
                // the same way).
                _ = try audio.audioSpecificConfig()
                id = AV_CODEC_ID_AAC
            case .other(let code):
                guard let row = CodecTable.row(code: code, audio: true) else {
                    throw refuse("codec \(audio.codec) is not one this muxer knows")
                }
                id = row.id
            }
            guard audio.sampleRate > 0, audio.channelCount > 0 else {
                throw refuse("\(audio.sampleRate) Hz, \(count: audio.channelCount, "channel")")
            }
            extradata = audio.magicCookie
        case .video(let video):
            displayName = video.codec.description
            if container == .m4a { throw refuse("M4A holds audio only; use mp4 for video") }
            switch video.codec {
            case .raw:
                throw refuse("\(video.codec) is raw video; encode it first (H264Encoder)")
            case .h264:
                guard let parameters = video.h264 else { throw refuse("the H.264 format has no SPS/PPS") }
                id = AV_CODEC_ID_H264
                extradata = try Self.avcC(parameters)
            case .other(let code):
                guard let row = CodecTable.row(code: code, audio: false) else {
                    throw refuse("codec \(video.codec) is not one this muxer knows")
                }
                id = row.id
                isoTag = container.isISOBaseMedia ? row.isoTag : nil
                // VP9's `vpcC` goes into the codec parameters (``VP9Configuration``), not the extradata.
                extradata = row.id == AV_CODEC_ID_VP9 ? [] : video.codecConfiguration
            }
            guard video.width > 0, video.height > 0 else { throw refuse("size \(video.width)x\(video.height)") }
        }
    }

    /// The `avcC` record (ISO/IEC 14496-15 5.3.3.1) for `parameters`, 4-byte NAL unit lengths, as
    /// ``/MediaBitstream/AVCDecoderConfigurationRecord`` builds it (with the high-profile fields, as FFmpeg's
    /// `ff_isom_write_avcc`): what MP4, MOV, FLV and Matroska store and libavformat takes as `extradata`.
    /// Throws ``/MediaCore/MediaError/Code/invalidData`` without an SPS and a PPS, and the record's errors.
    private static func avcC(_ parameters: H264Parameters) throws(MediaError) -> [UInt8] {
        let sps = parameters.sequenceParameterSets
        let pps = parameters.pictureParameterSets
        guard !sps.isEmpty, !pps.isEmpty else {
            throw MediaError(
                .invalidData,
                "H.264 format has no usable SPS and PPS (\(sps.count) SPS, \(pps.count) PPS) for an avcC record")
        }
        return try AVCDecoderConfigurationRecord(sequenceParameterSets: sps, pictureParameterSets: pps).bytes
    }

    /// Sets `stream`'s codec parameters and time base: 1/`timescale` when given (the samples' own), else
    /// 1/sample rate for audio and 1/90000 for video. The muxer may still change it in
    /// `avformat_write_header`; the caller reads the final one back.
    ///
    /// `priming`, the first sample's ``/MediaCore/MediaSample/trimAtStart``, becomes an Opus track's
    /// `initial_padding` (Matroska's `CodecDelay`, which lets its first packet start that far before zero,
    /// as `ffmpeg -c copy` writes it).
    func configure(_ stream: UnsafeMutablePointer<AVStream>, timescale: Int32? = nil, priming: Int = 0)
        throws(MediaError)
    {
        guard let par = stream.pointee.codecpar else {
            throw MediaError(.outOfMemory, "stream has no codec parameters", ffmpegCall: "avformat_new_stream")
        }
        par.pointee.codec_id = id
        if id == AV_CODEC_ID_OPUS { par.pointee.initial_padding = Int32(clamping: max(0, priming)) }
        // FFmpeg's MKTAG order: the first character in the low byte.
        if let isoTag { par.pointee.codec_tag = isoTag.rawValue.byteSwapped }
        if !extradata.isEmpty {
            let padded = extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)
            guard let buffer = av_mallocz(padded) else {
                throw MediaError(.outOfMemory, "cannot allocate codec extradata", ffmpegCall: "av_mallocz")
            }
            let bytes = buffer.assumingMemoryBound(to: UInt8.self)
            extradata.withUnsafeBufferPointer { source in
                if let base = source.baseAddress { bytes.update(from: base, count: extradata.count) }
            }
            par.pointee.extradata = bytes  // freed with the stream by avformat_free_context
            par.pointee.extradata_size = Int32(extradata.count)
        }
        switch format {
        case .audio(let audio):
            par.pointee.codec_type = AVMEDIA_TYPE_AUDIO
            par.pointee.sample_rate = Int32(clamping: audio.sampleRate)
            par.pointee.frame_size = Int32(clamping: audio.framesPerPacket)
            var layout = audio.channelLayout.avChannelLayout
            defer { av_channel_layout_uninit(&layout) }
            try check(
                av_channel_layout_copy(&par.pointee.ch_layout, &layout), calling: "av_channel_layout_copy", .outOfMemory
            )
            stream.pointee.time_base = AVRational(num: 1, den: timescale ?? Int32(clamping: audio.sampleRate))
        case .video(let video):
            par.pointee.codec_type = AVMEDIA_TYPE_VIDEO
            if id == AV_CODEC_ID_VP9 { VP9Configuration.apply(video.codecConfiguration, to: par) }
            par.pointee.width = Int32(clamping: video.width)
            par.pointee.height = Int32(clamping: video.height)
            if let aspect = video.pixelAspectRatio {
                par.pointee.sample_aspect_ratio = AVRational(
                    num: Int32(clamping: aspect.horizontalSpacing), den: Int32(clamping: aspect.verticalSpacing))
            }
            if let rate = video.frameRate, rate.isValid {
                stream.pointee.avg_frame_rate = AVRational(num: rate.numerator, den: rate.denominator)
            }
            stream.pointee.time_base = AVRational(num: 1, den: timescale ?? 90_000)
        }
    }
}
