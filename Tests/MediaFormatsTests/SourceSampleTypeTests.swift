import MediaCore
import MediaFormats
import Testing

/// `AudioFormat.sourceSampleType`: the PCM type that holds a format without loss. For Apple Lossless it
/// comes from the cookie's `ALACSpecificConfig.bitDepth`, in the forms files hold the cookie.
@Suite(.timeLimit(.minutes(1))) struct SourceSampleTypeTests {
    /// An `ALACSpecificConfig` of `depth` bits (4096 frames, stereo, 44.1 kHz).
    static func config(depth: UInt8) -> [UInt8] {
        [0, 0, 0x10, 0, 0, depth, 40, 10, 14, 2, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xAC, 0x44]
    }

    static func alac(_ cookie: [UInt8]) -> AudioFormat {
        AudioFormat(
            codec: .other(fourCC: AudioStreamBasicDescription.appleLossless), sampleRate: 44_100,
            channelLayout: .stereo, framesPerPacket: 4096, magicCookie: cookie)
    }

    @Test(arguments: [(UInt8(16), PCMSampleType.s16), (20, .s24), (24, .s24), (32, .s32)])
    func appleLosslessKeepsItsSourceDepth(depth: UInt8, type: PCMSampleType) {
        let bare = Self.config(depth: depth)
        let atom = [0, 0, 0, 36] + Array("alac".utf8) + [0, 0, 0, 0] + bare
        #expect(Self.alac(bare).sourceSampleType == type)
        #expect(Self.alac(atom).sourceSampleType == type)
    }

    @Test func pcmIsItsOwnTypeAndLossyOrUnreadableHasNone() {
        #expect(AudioFormat.pcm(PCMFormat(.s24), sampleRate: 48_000, channelLayout: .stereo).sourceSampleType == .s24)
        let aac = AudioFormat(codec: .aac, sampleRate: 44_100, channelLayout: .stereo, framesPerPacket: 1024)
        #expect(aac.sourceSampleType == nil)
        #expect(Self.alac(Self.config(depth: 12)).sourceSampleType == nil)
        #expect(Self.alac([1, 2, 3]).sourceSampleType == nil)
    }
}
