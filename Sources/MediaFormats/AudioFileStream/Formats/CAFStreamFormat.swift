import MediaCore

/// A CAF `desc` chunk checked and turned into the ``AudioStreamBasicDescription`` that
/// ``AudioFileStreamParser`` reports.
///
/// Accepts rates from 1 Hz to 2^31-1 Hz and 1 to 4096 channels (as ``CAFReader``), and:
/// - linear PCM with any CAF flags (`kCAFLinearPCMFormatFlagIsFloat`, `…IsLittleEndian`): integers of 1
///   to 64 bits (signed, 8-bit too, as CAF defines them) or 32- or 64-bit floats, one frame per packet.
///   The ASBD gets Core Audio's flags (`isFloat` or `isSignedInteger`; `isBigEndian` unless little-endian,
///   for samples wider than a byte; `isPacked` when the samples fill `mBytesPerPacket`), and
///   `bytesPerFrame` = `mBytesPerPacket` (or, when that is 0, channels × whole bytes per sample);
/// - any other format as `desc` gives it: constant packets when `mBytesPerPacket` and
///   `mFramesPerPacket` are both non-zero (`bytesPerFrame` = `mBytesPerPacket` when a packet is one
///   frame, as for `ulaw`/`alaw`, else 0), variable ones otherwise.
///
/// - Throws: ``/MediaCore/MediaError/Code/invalidData`` at the `desc` chunk for an unusable rate or
///   channel count, or linear PCM whose samples do not fit `mBytesPerPacket`;
///   ``/MediaCore/MediaError/Code/unsupportedFormat`` for float PCM of other widths, integers wider than
///   64 bits, and PCM packets of more than one frame.
struct CAFStreamFormat: Sendable, Hashable {
    /// The description to report.
    let description: AudioStreamBasicDescription
    /// The `desc` chunk as stored.
    let desc: CAFAudioDescription

    /// Whether packets vary in size or duration (their sizes or frame counts are in `pakt`).
    var isVariable: Bool { description.bytesPerPacket == 0 || description.framesPerPacket == 0 }

    /// Checks `desc`, whose chunk header is at `offset`.
    init(_ desc: CAFAudioDescription, at offset: Int64) throws(MediaError) {
        self.desc = desc
        guard desc.sampleRate.isFinite, desc.sampleRate >= 1, desc.sampleRate <= Double(Int32.max) else {
            throw MediaError.invalidData(
                "CAF 'desc' mSampleRate of \(desc.sampleRate) is not a usable rate", at: offset)
        }
        guard desc.channelsPerFrame >= 1, desc.channelsPerFrame <= 4096 else {
            throw MediaError.invalidData(
                "CAF 'desc' mChannelsPerFrame of \(desc.channelsPerFrame) is not a usable channel count", at: offset)
        }
        guard desc.isLinearPCM else {
            let onePerPacket = desc.framesPerPacket == 1 && desc.bytesPerPacket > 0
            description = AudioStreamBasicDescription(
                sampleRate: desc.sampleRate, formatID: desc.formatID, formatFlags: desc.formatFlags,
                bytesPerPacket: desc.bytesPerPacket, framesPerPacket: desc.framesPerPacket,
                bytesPerFrame: onePerPacket ? desc.bytesPerPacket : 0, channelsPerFrame: desc.channelsPerFrame,
                bitsPerChannel: desc.bitsPerChannel)
            return
        }
        let isFloat = desc.formatFlags & CAFAudioDescription.flagIsFloat != 0
        let isLittleEndian = desc.formatFlags & CAFAudioDescription.flagIsLittleEndian != 0
        let bits = Int(desc.bitsPerChannel)
        guard isFloat ? bits == 32 || bits == 64 : (1...64).contains(bits) else {
            throw MediaError(
                .unsupportedFormat,
                "CAF 'desc' linear PCM of \(bits)-bit \(isFloat ? "float" : "integer") samples is not supported",
                byteOffset: offset)
        }
        guard desc.framesPerPacket == 1 else {
            throw MediaError(
                .unsupportedFormat,
                "CAF 'desc' linear PCM with \(count: desc.framesPerPacket, "frame") per packet is not supported (only 1)",
                byteOffset: offset)
        }
        let channels = Int(desc.channelsPerFrame)
        let minimum = channels * ((bits + 7) / 8)
        let frameBytes = desc.bytesPerPacket == 0 ? minimum : Int(desc.bytesPerPacket)
        guard frameBytes >= minimum else {
            throw MediaError.invalidData(
                "CAF 'desc' linear PCM of \(count: bits, "bit") × \(count: channels, "channel") does not fit in \(count: frameBytes, "byte") per packet",
                at: offset)
        }
        var flags: AudioStreamBasicDescription.Flags = isFloat ? [.isFloat] : [.isSignedInteger]
        if !isLittleEndian && bits > 8 { flags.insert(.isBigEndian) }
        if frameBytes * 8 == channels * bits { flags.insert(.isPacked) }
        description = AudioStreamBasicDescription(
            sampleRate: desc.sampleRate, formatID: desc.formatID, formatFlags: flags.rawValue,
            bytesPerPacket: UInt32(frameBytes),
            framesPerPacket: 1, bytesPerFrame: UInt32(frameBytes), channelsPerFrame: desc.channelsPerFrame,
            bitsPerChannel: desc.bitsPerChannel)
    }
}
