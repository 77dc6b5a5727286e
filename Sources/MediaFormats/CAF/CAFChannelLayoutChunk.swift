import MediaCore

/// The `chan` chunk (`CAFChannelLayout`: `mChannelLayoutTag`, `mChannelBitmap`, `mNumberChannelDescriptions`,
/// then the descriptions) as far as a ``/MediaCore/ChannelLayout`` mask can say it, for ``CAFReader`` and
/// the CAF part of ``AudioFileStreamParser``.
///
/// `kCAFChannelLayoutTag_UseChannelBitmap` with a bitmap of as many bits as there are channels gives
/// that bitmap as the mask (Core Audio's channel bits and WAVE's mask share their order: left, right,
/// centre, LFE, left and right surround …). Every other tag, a bitmap of another count, a body shorter
/// than 12 bytes and no `chan` give the channel count's default, which is what the tags Mono, Stereo and
/// MPEG 5.1 A describe.
enum CAFChannelLayoutChunk {
    /// The bytes read: the tag and the bitmap (and the description count).
    static let headerSize = 12

    /// The layout `body` (the chunk's body, or its first ``headerSize`` bytes; `nil` without `chan`)
    /// gives for `channels` channels.
    static func layout(_ body: ArraySlice<UInt8>?, channels: Int) -> ChannelLayout {
        guard let body, body.count >= headerSize else { return .default(channelCount: channels) }
        let bytes = Array(body.prefix(8))
        let tag = bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }  // mChannelLayoutTag
        let bitmap = bytes[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }  // mChannelBitmap
        if tag == CAFFile.channelLayoutTagUseBitmap, bitmap.nonzeroBitCount == channels {
            return ChannelLayout(mask: UInt64(bitmap))
        }
        return .default(channelCount: channels)
    }
}
