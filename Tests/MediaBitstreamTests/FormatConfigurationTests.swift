import MediaBitstream
import MediaCore
import Testing

/// The AudioSpecificConfig the muxers take from a format, and four-character codes.
@Suite(.timeLimit(.minutes(2))) struct FormatConfigurationTests {
    @Test func anAACFormatGivesItsParsedConfiguration() throws {
        let format = AudioFormat.aac(
            sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [0x11, 0x90, 0x56, 0xE5, 0x00])
        let config = try format.audioSpecificConfig()
        #expect(config.objectType == 2 && config.sampleRate == 48_000 && config.channelConfiguration == 2)
        #expect(config.sbrSignal == .absent)
        #expect(config.audioFormat.magicCookie == format.magicCookie)
    }

    @Test func formatsWithoutAReadableConfigurationAreRefused() {
        let missing = AudioFormat.aac(sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [])
        #expect(throws: MediaError.self) { try missing.audioSpecificConfig() }
        #expect((try? missing.audioSpecificConfig()) == nil)
        do {
            _ = try missing.audioSpecificConfig()
        } catch {
            #expect(error.code == .invalidArgument)
        }
        // Sampling frequency index 13 is reserved.
        let reserved = AudioFormat.aac(sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [0x16, 0x90])
        do {
            _ = try reserved.audioSpecificConfig()
            Issue.record("a reserved sampling frequency index was accepted")
        } catch {
            #expect(error.code == .invalidData)
            #expect(error.message.contains("not a readable AudioSpecificConfig"))
        }
        let pcm = AudioFormat.pcm(.s16, sampleRate: 48_000, channels: 2)
        #expect((try? pcm.audioSpecificConfig()) == nil)
    }

    @Test func fourCharacterCodes() {
        let code = FourCC("hvc1")
        #expect(code.rawValue == 0x6876_6331)
        #expect(code.bytes == Array("hvc1".utf8) && code.string == "hvc1" && code.description == "'hvc1'")
        #expect(FourCC(tag: 0x3163_7668) == code)
        #expect(FourCC(tag: 0) == nil && FourCC(tag: 0x0000_0001) == nil)
        #expect(FourCC(bytes: [0x61, 0x61, 0x63, 0x20]) == FourCC("aac "))
        #expect(FourCC(bytes: [0x61]) == nil)
        #expect(FourCC(".mp").string == ".mp ")
        #expect(FourCC(rawValue: 0x0001_FF7F).description == "0x00 0x01 0xFF 0x7F")
        #expect(FourCC.describe([UInt8]()) == "nothing")
        #expect(FourCC.hex(0xAB, digits: 4) == "00AB")
    }
}
