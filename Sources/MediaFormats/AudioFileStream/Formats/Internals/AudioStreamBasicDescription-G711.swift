extension AudioStreamBasicDescription {
    /// G.711 A-law or µ-law (`formatID` ``aLaw`` or ``uLaw``) as Core Audio describes it for WAVE and
    /// NeXT files: one 8-bit sample per channel, one frame per packet, no flags.
    static func g711(_ formatID: UInt32, sampleRate: Double, channels: Int) -> AudioStreamBasicDescription {
        let frameBytes = UInt32(clamping: channels)
        return AudioStreamBasicDescription(
            sampleRate: sampleRate, formatID: formatID, formatFlags: 0, bytesPerPacket: frameBytes, framesPerPacket: 1,
            bytesPerFrame: frameBytes, channelsPerFrame: frameBytes, bitsPerChannel: 8)
    }
}
