import MediaCore

extension CAFAudioDescription: CustomStringConvertible {
    /// The `desc` chunk as `afinfo` shows a format: `'aac ' 44100 Hz 2 ch 1024 frames/packet variable
    /// bytes/packet`, `'lpcm' 48000 Hz 2 ch 24 bit integer little-endian`.
    public var description: String {
        let rate =
            sampleRate.rounded() == sampleRate && sampleRate.magnitude < 1e15
            ? String(Int64(sampleRate)) : String(sampleRate)
        var text = "'\(CAFFile.fourCCString(formatID))' \(rate) Hz \(channelsPerFrame) ch"
        if isLinearPCM {
            text += " \(bitsPerChannel) bit"
            text += formatFlags & Self.flagIsFloat != 0 ? " float" : " integer"
            text += formatFlags & Self.flagIsLittleEndian != 0 ? " little-endian" : " big-endian"
        } else {
            text += framesPerPacket > 0 ? " \(framesPerPacket) frames/packet" : " variable frames/packet"
            text += bytesPerPacket > 0 ? " \(bytesPerPacket) bytes/packet" : " variable bytes/packet"
        }
        return text
    }
}

extension CAFPacketTable: CustomStringConvertible {
    /// The `pakt` chunk's header: `2583 packets, 2643968 valid frames, 2112 priming, 448 remainder`
    /// (the packet sizes themselves are left out).
    public var description: String {
        "\(count: numberPackets, "packet"), \(numberValidFrames) valid frames, \(primingFrames) priming, \(remainderFrames) remainder"
    }
}
