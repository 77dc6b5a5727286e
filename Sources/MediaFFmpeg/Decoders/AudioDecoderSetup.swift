internal import CMediaFFmpeg
import MediaBitstream
import MediaCore

/// How a compressed ``/MediaCore/AudioFormat`` becomes an FFmpeg decoder's configuration: the codec id,
/// the extradata, the block alignment, and the packet size samples must be whole multiples of.
///
/// - Accepts (``init(for:)``): `.aac` with its AudioSpecificConfig as magic cookie; by Core Audio
///   format id, `.mp3`, `.mp2`, `.mp1`, `alac` (cookie: see ``ALACMagicCookie``), `ima4` (Apple
///   IMA, 34 bytes per channel per 64 frames), `0x6D730011` (IMA ADPCM in WAV: `framesPerPacket`
///   frames per block), `ulaw`, `alaw`; and every other audio codec of ``CodecTable`` (`opus`,
///   `flac`, `vorb`, `ac-3`, `ec-3`, `samr`, `sawb`, or their aliases) with the magic cookie as FFmpeg's
///   extradata, as ``ContainerDemuxer`` hands it on.
/// - Returns `nil` for any other codec (linear PCM included: it needs no decoder).
/// - Throws ``/MediaCore/MediaError/Code/invalidData`` (or ``/MediaCore/MediaError/Code/truncated`` for
///   a short ALAC cookie) for a format the codec cannot have: AAC without a cookie, an unreadable ALAC
///   cookie, an IMA WAV block size that is not 1 + 8n frames, more than 64 channels.
struct AudioDecoderSetup {
    /// FFmpeg's codec.
    let codecID: AVCodecID
    /// The codec as messages name it: `AAC`, `MP3`, `IMA4`, ...
    let name: String
    /// What goes into `AVCodecContext.extradata`.
    var extradata: [UInt8] = []
    /// `AVCodecContext.block_align`: bytes per block (IMA ADPCM in WAV), or 0.
    var blockAlign = 0
    /// `AVCodecContext.bits_per_coded_sample`, or 0.
    var bitsPerCodedSample = 0
    /// For codecs of fixed-size packets, the bytes of one: a sample must hold a whole number of them.
    var packetSize = 0
    /// Whether a decoded frame at another rate than the format's is an error (not for AAC, whose SBR
    /// output rate the declared one may not say).
    var checksSampleRate = true
    /// Whether libavcodec's decoder skips the codec's priming by itself (Opus: its header's pre-skip),
    /// which the samples' trims already cover: it is then asked to only mark it
    /// (`AV_CODEC_FLAG2_SKIP_MANUAL`, which costs a side-data allocation per frame, so not for the rest).
    var decoderSkipsPriming = false

    /// `kAudioFormatAppleLossless`, `'alac'`.
    static let alac: UInt32 = 0x616C_6163
    /// `kAudioFormatAppleIMA4`, `'ima4'`.
    static let ima4: UInt32 = 0x696D_6134
    /// Core Audio's id for WAVE format tag 0x0011 (DVI/Intel IMA ADPCM): `'ms\0\x11'`.
    static let imaWAV: UInt32 = 0x6D73_0011
    /// `kAudioFormatULaw`, `'ulaw'`.
    static let ulaw: UInt32 = 0x756C_6177
    /// `kAudioFormatALaw`, `'alaw'`.
    static let alaw: UInt32 = 0x616C_6177

    /// The codecs this configures, as error messages list them.
    static let supported =
        "AAC, MP3, MP2, ALAC, IMA4, IMA ADPCM (WAV), A-law, µ-law, Opus, FLAC, Vorbis, AC-3, E-AC-3 or AMR"

    private init(codecID: AVCodecID, name: String) {
        self.codecID = codecID
        self.name = name
    }

    /// The configuration for `format`, or `nil` when it is no codec this decodes.
    init?(for format: AudioFormat) throws(MediaError) {
        let channels = format.channelCount
        switch format.codec {
        case .pcm:
            return nil
        case .aac:
            self = try Self.aac(format)
        case .other(let code):
            guard (1...64).contains(channels) else {
                throw MediaError(
                    .invalidData,
                    "\(format.codec) format has \(count: channels, "channel"); FFmpeg's decoders take 1 to 64")
            }
            switch code {
            case Self.alac:
                self.init(codecID: AV_CODEC_ID_ALAC, name: "ALAC")
                extradata = try ALACMagicCookie.extradata(from: format.magicCookie)
            case Self.ima4:
                self.init(codecID: AV_CODEC_ID_ADPCM_IMA_QT, name: "IMA4")
                packetSize = 34 * channels
                blockAlign = packetSize
                bitsPerCodedSample = 4
            case Self.imaWAV:
                self.init(codecID: AV_CODEC_ID_ADPCM_IMA_WAV, name: "IMA ADPCM")
                let frames = format.framesPerPacket
                guard (9...65_529).contains(frames), (frames - 1) % 8 == 0 else {
                    throw MediaError(
                        .invalidData,
                        "IMA ADPCM format has \(count: frames, "frame") per block; a block holds 1 + 8n frames (9...65529)"
                    )
                }
                blockAlign = (frames - 1) / 2 * channels + 4 * channels
                bitsPerCodedSample = 4
            case Self.ulaw, Self.alaw:
                self.init(
                    codecID: code == Self.ulaw ? AV_CODEC_ID_PCM_MULAW : AV_CODEC_ID_PCM_ALAW,
                    name: code == Self.ulaw ? "µ-law" : "A-law")
                packetSize = channels
                blockAlign = channels
                bitsPerCodedSample = 8
            default:
                // Any other codec of the table (MP3, Opus, FLAC, AC-3, ...): the container's extradata
                // (OpusHead, STREAMINFO, ...) as the demuxer handed it on, none for MPEG audio.
                guard let row = CodecTable.row(code: code, audio: true) else { return nil }
                self.init(codecID: row.id, name: row.name)
                extradata = format.magicCookie
                // Opus decodes at 48 kHz whatever rate its header names as the input's.
                checksSampleRate = row.id != AV_CODEC_ID_OPUS
                decoderSkipsPriming = row.id == AV_CODEC_ID_OPUS
            }
        }
    }

    /// The configuration for AAC; throws ``/MediaCore/MediaError/Code/invalidData`` without a cookie.
    static func aac(_ format: AudioFormat) throws(MediaError) -> AudioDecoderSetup {
        guard !format.magicCookie.isEmpty else {
            throw MediaError(.invalidData, "AAC format has no AudioSpecificConfig (magic cookie)")
        }
        var setup = AudioDecoderSetup(codecID: AV_CODEC_ID_AAC, name: "AAC")
        setup.extradata = format.magicCookie
        setup.checksSampleRate = false
        return setup
    }
}
