internal import CMediaFFmpeg
import MediaBitstream
import MediaCore

/// The one table of the compressed codecs the library names by four-character code: which FFmpeg codec
/// each code is, and the codes containers use for it besides. The demuxer reads it to name a stream's
/// codec (FFmpeg's id → code), the muxer to find FFmpeg's id for a track (code or alias → id), and
/// ``AudioDecoder`` to find the decoder for a code it has no configuration of its own for. Adding a
/// codec is one row.
///
/// A code is Core Audio's `mFormatID` for audio (`kAudioFormatOpus` `'opus'`, `kAudioFormatFLAC`
/// `'flac'`, `kAudioFormatMPEGLayer3` `'.mp3'`) and the QuickTime / ISO BMFF sample entry type for video
/// (`'hvc1'`, `'av01'`, `'vp09'`). The aliases are the other spellings a track may come with: the MP4
/// sample entries of Opus and FLAC (`'Opus'`, `'fLaC'`, ISO/IEC 23003-5 and the Opus-in-ISOBMFF
/// mapping), HEVC's `'hev1'` (parameter sets in band).
///
/// AAC and H.264 have their own ``/MediaCore/AudioCodec`` and ``/MediaCore/VideoCodec`` cases, and
/// linear PCM its own; they are not rows.
enum CodecTable {
    /// One codec.
    struct Row: Sendable {
        /// The code the library names it by.
        let code: FourCC
        /// Other codes that mean the same codec.
        let aliases: [FourCC]
        /// FFmpeg's codec.
        let id: AVCodecID
        /// The codec as messages name it: `Opus`, `FLAC`, `HEVC`.
        let name: String
        /// Whether it is an audio codec (else video).
        let isAudio: Bool
        /// The sample entry type MP4 and MOV files should carry when it is not libavformat's default:
        /// `'hvc1'` for HEVC (parameter sets only in `hvcC`, which Apple's players require; libavformat
        /// 5.1 writes `'hev1'` unless told).
        let isoTag: FourCC?

        init(
            _ code: StaticString, _ id: AVCodecID, _ name: String, audio: Bool, aliases: [StaticString] = [],
            isoTag: StaticString? = nil
        ) {
            self.code = FourCC(code)
            self.aliases = aliases.map { FourCC($0) }
            self.id = id
            self.name = name
            isAudio = audio
            self.isoTag = isoTag.map { FourCC($0) }
        }
    }

    /// Every row: audio first, then video.
    static let rows: [Row] = [
        Row(".mp3", AV_CODEC_ID_MP3, "MP3", audio: true),
        Row(".mp2", AV_CODEC_ID_MP2, "MP2", audio: true),
        Row(".mp1", AV_CODEC_ID_MP1, "MP1", audio: true),
        Row("alac", AV_CODEC_ID_ALAC, "ALAC", audio: true),
        Row("flac", AV_CODEC_ID_FLAC, "FLAC", audio: true, aliases: ["fLaC"]),
        Row("opus", AV_CODEC_ID_OPUS, "Opus", audio: true, aliases: ["Opus"]),
        Row("ac-3", AV_CODEC_ID_AC3, "AC-3", audio: true),
        Row("ec-3", AV_CODEC_ID_EAC3, "E-AC-3", audio: true),
        Row("vorb", AV_CODEC_ID_VORBIS, "Vorbis", audio: true),
        Row("dtsc", AV_CODEC_ID_DTS, "DTS", audio: true),
        Row("alaw", AV_CODEC_ID_PCM_ALAW, "A-law", audio: true),
        Row("ulaw", AV_CODEC_ID_PCM_MULAW, "µ-law", audio: true),
        Row("samr", AV_CODEC_ID_AMR_NB, "AMR-NB", audio: true),
        Row("sawb", AV_CODEC_ID_AMR_WB, "AMR-WB", audio: true),
        Row("ima4", AV_CODEC_ID_ADPCM_IMA_QT, "IMA4", audio: true),
        // Core Audio's id for WAVE format tag 0x0011 (DVI/Intel IMA ADPCM): 'ms\0\x11'.
        Row(imaWAV, AV_CODEC_ID_ADPCM_IMA_WAV, "IMA ADPCM", audio: true),
        Row("hvc1", AV_CODEC_ID_HEVC, "HEVC", audio: false, aliases: ["hev1"], isoTag: "hvc1"),
        Row("av01", AV_CODEC_ID_AV1, "AV1", audio: false),
        Row("vp09", AV_CODEC_ID_VP9, "VP9", audio: false),
        Row("vp08", AV_CODEC_ID_VP8, "VP8", audio: false),
        Row("mp4v", AV_CODEC_ID_MPEG4, "MPEG-4 Part 2", audio: false),
        Row("jpeg", AV_CODEC_ID_MJPEG, "Motion JPEG", audio: false),
        Row("mp2v", AV_CODEC_ID_MPEG2VIDEO, "MPEG-2 video", audio: false),
        Row("mp1v", AV_CODEC_ID_MPEG1VIDEO, "MPEG-1 video", audio: false),
        Row("h263", AV_CODEC_ID_H263, "H.263", audio: false),
        Row("theo", AV_CODEC_ID_THEORA, "Theora", audio: false),
        Row("apcn", AV_CODEC_ID_PRORES, "ProRes", audio: false),
        Row("png ", AV_CODEC_ID_PNG, "PNG", audio: false)
    ]

    /// The row whose code or alias is `code`, of audio or video as `audio` says.
    static func row(code: UInt32, audio: Bool) -> Row? {
        rows.first { $0.isAudio == audio && ($0.code.rawValue == code || $0.aliases.contains { $0.rawValue == code }) }
    }

    /// The row of FFmpeg's codec `id`, of audio or video as `audio` says.
    static func row(id: AVCodecID, audio: Bool) -> Row? {
        rows.first { $0.isAudio == audio && $0.id == id }
    }
}

extension CodecTable.Row {
    /// A row whose code is given as its value (`imaWAV`'s has unprintable bytes).
    fileprivate init(_ code: UInt32, _ id: AVCodecID, _ name: String, audio: Bool) {
        self.code = FourCC(rawValue: code)
        aliases = []
        self.id = id
        self.name = name
        isAudio = audio
        isoTag = nil
    }
}

/// `'ms\0\x11'`, as a value.
private let imaWAV: UInt32 = 0x6D73_0011
