// The licence facts the report looks up: which licence each external codec library is under, and
// which codecs MediaPipeline opens. Whether each is present in this FFmpeg build is asked of FFmpeg at
// run time; only the facts about the libraries themselves are a table here.
//
// Sources (FFmpeg 5.1):
// - LICENSE.md: "Most files in FFmpeg are under the GNU Lesser General Public License version 2.1 or
//   later (LGPL v2.1+) … Some optional parts of FFmpeg are licensed under the GNU General Public
//   License version 2 or later (GPL v2+) … you have to explicitly pass `--enable-gpl` to configure to
//   activate them. In this case, FFmpeg's license changes to GPL v2+." Likewise `--enable-version3`
//   makes it (L)GPL version 3, and the "incompatible libraries" (libfdk-aac among them) need
//   `--enable-nonfree`, which makes the build "unredistributable".
// - configure: EXTERNAL_LIBRARY_GPL_LIST = "avisynth frei0r libcdio libdavs2 librubberband
//   libvidstab libx264 libx265 libxavs libxavs2 libxvid" (these refuse to build without
//   --enable-gpl); EXTERNAL_LIBRARY_NONFREE_LIST = "decklink libfdk_aac libtls";
//   EXTERNAL_LIBRARY_VERSION3_LIST includes libopencore_amrnb, libopencore_amrwb, libvo_amrwbenc.
// - The libraries' own licences: x264 and x265 (COPYING: GPL v2 "or (at your option) any later
//   version"), Xvid (GPL v2+), Cisco's OpenH264 (BSD-2-Clause), LAME (LGPL v2+), Opus (BSD-3-Clause),
//   dav1d (BSD-2-Clause), libvorbis (BSD-3-Clause), libvpx (BSD-3-Clause), FDK AAC (the Fraunhofer
//   FDK AAC licence: free to redistribute alone, but GPL-incompatible).
internal import CMediaFFmpeg

enum LicenceFacts {
    /// SPDX-style licence of an external codec library, by the FFmpeg wrapper's codec name prefix
    /// (`libx264`, `libx264rgb` → x264).
    static let externalLibraries: [(prefix: String, licence: String)] = [
        ("libx264", "GPL-2.0-or-later (x264; needs FFmpeg --enable-gpl)"),
        ("libx265", "GPL-2.0-or-later (x265; needs FFmpeg --enable-gpl)"),
        ("libxvid", "GPL-2.0-or-later (Xvid; needs FFmpeg --enable-gpl)"),
        ("libxavs", "GPL-2.0-or-later (xavs; needs FFmpeg --enable-gpl)"),
        ("libdavs2", "GPL-2.0-or-later (davs2; needs FFmpeg --enable-gpl)"),
        ("libfdk_aac", "FDK-AAC (GPL-incompatible; needs FFmpeg --enable-nonfree)"),
        ("libopencore_amr", "Apache-2.0 (opencore-amr; needs FFmpeg --enable-version3)"),
        ("libvo_amrwbenc", "Apache-2.0 (vo-amrwbenc; needs FFmpeg --enable-version3)"),
        ("libopenh264", "BSD-2-Clause (OpenH264)"),
        ("libmp3lame", "LGPL-2.0-or-later (LAME)"),
        ("libopus", "BSD-3-Clause (Opus)"),
        ("libdav1d", "BSD-2-Clause (dav1d)"),
        ("libvorbis", "BSD-3-Clause (libvorbis)"),
        ("libvpx", "BSD-3-Clause (libvpx)")
    ]

    /// FFmpeg's own code (a native codec or a hardware wrapper), per LICENSE.md.
    static let ffmpegOwnCode = "LGPL-2.1-or-later (FFmpeg's own code)"

    /// The licence of the codec named `name`, wrapping the external library `wrapper` (`nil`: FFmpeg's own).
    static func licence(codec name: String, wrapper: String?) -> String {
        if let known = externalLibraries.first(where: { name.hasPrefix($0.prefix) }) { return known.licence }
        if let wrapper, wrapper.hasPrefix("lib") {
            return "the licence of the external library \(wrapper) (not in MediaPipeline's table)"
        }
        return ffmpegOwnCode
    }

    /// A codec MediaPipeline opens: by encoder name, or by decoder codec ID.
    enum Lookup {
        case encoder(String)
        case decoder(AVCodecID)
    }

    /// Every codec MediaPipeline's stages open, with what for (see H264Encoder, AACEncoder,
    /// H264Decoder, AACDecoder and AudioDecoder / AudioDecoderSetup).
    static let usedCodecs: [(lookup: Lookup, purpose: String)] = [
        (.encoder("libx264"), "H.264 encoding (H264Encoder's default)"),
        (.encoder("aac"), "AAC-LC encoding (AACEncoder)"),
        (.decoder(AV_CODEC_ID_H264), "H.264 decoding (H264Decoder)"),
        (.decoder(AV_CODEC_ID_AAC), "AAC decoding (AACDecoder, AudioDecoder)"),
        (.decoder(AV_CODEC_ID_MP3), "MP3 decoding (AudioDecoder)"),
        (.decoder(AV_CODEC_ID_MP2), "MP2 decoding (AudioDecoder)"),
        (.decoder(AV_CODEC_ID_MP1), "MP1 decoding (AudioDecoder)"),
        (.decoder(AV_CODEC_ID_ALAC), "ALAC decoding (AudioDecoder)"),
        (.decoder(AV_CODEC_ID_ADPCM_IMA_QT), "IMA4 decoding (AudioDecoder)"),
        (.decoder(AV_CODEC_ID_ADPCM_IMA_WAV), "IMA ADPCM decoding (AudioDecoder)"),
        (.decoder(AV_CODEC_ID_PCM_MULAW), "µ-law decoding (AudioDecoder)"),
        (.decoder(AV_CODEC_ID_PCM_ALAW), "A-law decoding (AudioDecoder)")
    ]
}
