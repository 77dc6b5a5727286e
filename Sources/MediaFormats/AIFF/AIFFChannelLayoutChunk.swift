import MediaCore

/// The body of the `CHAN` chunk (a Core Audio `AudioChannelLayout`: tag, bitmap, 0 descriptions) that
/// FFmpeg's AIFF muxer writes before `COMM` for more than two channels in a known order.
///
/// The layouts FFmpeg names get Apple's layout tag (5.1 with back or side surrounds both become
/// `kAudioChannelLayoutTag_MPEG_5_1_A`, quad `ITU_2_2`, 7.1 `MPEG_7_1_C`, ...); any other is written as
/// `kAudioChannelLayoutTag_UseChannelBitmap` with the mask as the bitmap, which is the same bit order.
enum AIFFChannelLayoutChunk {
    /// `kAudioChannelLayoutTag_UseChannelBitmap`.
    static let useChannelBitmap: UInt32 = 0x0001_0000

    /// FFmpeg's mask-to-tag table, in its order (the first match wins): Apple's tag is the layout number
    /// in the high 16 bits and the channel count in the low 16.
    static let tags: [(mask: UInt64, tag: UInt32)] = [
        (0x4, 100 << 16 | 1),  // mono: Mono
        (0x3, 101 << 16 | 2),  // stereo: Stereo
        (0x103, 131 << 16 | 3),  // 2.1 (L R Cs): ITU_2_1
        (0x33, 132 << 16 | 4),  // quad (L R Ls Rs, back): ITU_2_2
        (0x603, 132 << 16 | 4),  // quad(side): ITU_2_2
        (0x7, 113 << 16 | 3),  // 3.0: MPEG_3_0_A
        (0x107, 115 << 16 | 4),  // 4.0: MPEG_4_0_A
        (0x37, 117 << 16 | 5),  // 5.0 (back): MPEG_5_0_A
        (0x607, 117 << 16 | 5),  // 5.0(side): MPEG_5_0_A
        (0x3F, 121 << 16 | 6),  // 5.1 (back): MPEG_5_1_A
        (0x60F, 121 << 16 | 6),  // 5.1(side): MPEG_5_1_A
        (0x63F, 128 << 16 | 8),  // 7.1: MPEG_7_1_C
        (0x6CF, 126 << 16 | 8),  // 7.1(wide-side): MPEG_7_1_A
        (0x6000_003F, 130 << 16 | 8),  // 5.1 + downmix pair: SMPTE_DTV
        (0xB, 133 << 16 | 3),  // 2.1 (L R LFE): DVD_4
        (0x10B, 134 << 16 | 4),  // L R Cs LFE: DVD_5
        (0x3B, 135 << 16 | 4),  // quad + LFE: DVD_6
        (0x60B, 135 << 16 | 4),  // quad(side) + LFE: DVD_6
        (0xF, 136 << 16 | 4),  // 3.1: DVD_10
        (0x10F, 137 << 16 | 5)  // 4.1: DVD_11
    ]

    /// The 12-byte chunk body for `layout`, or `nil` when FFmpeg writes no `CHAN` (two channels or fewer,
    /// positions unspecified) or when the mask has positions beyond bit 31, which a bitmap cannot hold.
    static func body(for layout: ChannelLayout) -> [UInt8]? {
        guard layout.channelCount > 2, layout.isSpecified, let bitmap = UInt32(exactly: layout.mask) else { return nil }
        var w = ByteWriter(capacity: 12)
        if let known = tags.first(where: { $0.mask == layout.mask }) {
            w.writeUInt32BE(known.tag)  // mChannelLayoutTag
            w.writeUInt32BE(0)  // mChannelBitmap
        } else {
            w.writeUInt32BE(useChannelBitmap)  // mChannelLayoutTag
            w.writeUInt32BE(bitmap)  // mChannelBitmap
        }
        w.writeUInt32BE(0)  // mNumberChannelDescriptions
        return w.bytes
    }
}
