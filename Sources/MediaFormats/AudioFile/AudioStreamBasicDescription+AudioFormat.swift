public import MediaCore

extension AudioStreamBasicDescription {
    /// How a file's linear PCM bytes become one of MediaCore's ``/MediaCore/PCMFormat`` layouts (always
    /// little-endian, 8-bit unsigned).
    public enum PCMRewrite: Sendable, Hashable {
        /// The bytes are already in the layout.
        case none
        /// Each sample's `width` bytes are reversed (big-endian data).
        case reverseBytes(width: Int)
        /// Each byte's top bit is flipped (signed 8-bit data to unsigned).
        case flipSignBit
    }

    /// The format of the samples a reader makes of this data, and how PCM bytes are rewritten to get
    /// there. The canonical forms the decoders take:
    ///
    /// - linear PCM: packed, interleaved, little-endian, in the sample width the frame size gives
    ///   (8-bit unsigned, 16/24/32-bit signed, 32/64-bit float; 20-bit samples in 3 bytes are `s24`);
    /// - `aac `: ``/MediaCore/AudioCodec/aac`` with the AudioSpecificConfig as cookie, 1024 frames;
    /// - anything else (`.mp3`, `.mp2`, `alac`, `ima4`, the WAVE IMA code, `ulaw`, `alaw`):
    ///   ``/MediaCore/AudioCodec/other(fourCC:)`` with the format ID, the cookie as the file holds it
    ///   and the format's frames per packet (1 for A-law/µ-law).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/unsupportedFormat`` for a rate or channel count of zero or
    ///   beyond Int32, non-interleaved PCM, or a PCM sample width MediaCore has no layout for.
    public func audioFormat(channelLayout: ChannelLayout? = nil, magicCookie: [UInt8] = []) throws(MediaError) -> (
        format: AudioFormat, rewrite: PCMRewrite
    ) {
        guard sampleRate >= 1, sampleRate <= Double(Int32.max), channelsPerFrame >= 1, channelsPerFrame <= 4096 else {
            throw MediaError(.unsupportedFormat, "\(self): no usable sample rate or channel count")
        }
        let rate = Int(sampleRate.rounded())
        let channels = Int(channelsPerFrame)
        let layout =
            channelLayout.flatMap { $0.channelCount == channels ? $0 : nil } ?? .default(channelCount: channels)
        switch formatID {
        case Self.linearPCM:
            guard !flags.contains(.isNonInterleaved), bytesPerFrame > 0, Int(bytesPerFrame) % channels == 0 else {
                throw MediaError(
                    .unsupportedFormat, "\(self): only interleaved PCM with whole bytes per sample is read")
            }
            let width = Int(bytesPerFrame) / channels
            let float = flags.contains(.isFloat)
            let type: PCMSampleType
            switch (width, float) {
            case (1, false): type = .u8
            case (2, false): type = .s16
            case (3, false): type = .s24
            case (4, false): type = .s32
            case (4, true): type = .f32
            case (8, true): type = .f64
            default:
                throw MediaError(
                    .unsupportedFormat,
                    "\(self): \(width)-byte \(float ? "float" : "integer") samples have no PCM layout")
            }
            let rewrite: PCMRewrite =
                width == 1
                ? (flags.contains(.isSignedInteger) ? .flipSignBit : .none)
                : (flags.contains(.isBigEndian) ? .reverseBytes(width: width) : .none)
            return (.pcm(PCMFormat(type), sampleRate: rate, channelLayout: layout), rewrite)
        case Self.mpeg4AAC:
            return (.aac(sampleRate: rate, channelLayout: layout, audioSpecificConfig: magicCookie), .none)
        default:
            let frames = formatID == Self.uLaw || formatID == Self.aLaw ? 1 : Int(framesPerPacket)
            return (
                AudioFormat(
                    codec: .other(fourCC: formatID), sampleRate: rate, channelLayout: layout, framesPerPacket: frames,
                    magicCookie: magicCookie), .none
            )
        }
    }
}
