import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct AudioSpecificConfigTests {
    @Test func parsesApplesTwoByteConfig() throws {
        let config = try AudioSpecificConfig(parsing: [0x12, 0x10])
        #expect(config.objectType == 2)
        #expect(config.samplingFrequencyIndex == 4)
        #expect(config.sampleRate == 44_100)
        #expect(config.channelConfiguration == 2)
        #expect(!config.frameLengthFlag && !config.dependsOnCoreCoder && !config.extensionFlag)
        #expect(config.sbrSignal == nil)
        #expect(config.bytes == [0x12, 0x10])
    }

    @Test func parsesFFmpegsFiveByteExtradataWithSBRSyncExtension() throws {
        let extradata: [UInt8] = [0x11, 0x90, 0x56, 0xE5, 0x00]
        let config = try AudioSpecificConfig(parsing: extradata)
        #expect(config.objectType == 2)
        #expect(config.samplingFrequencyIndex == 3)
        #expect(config.sampleRate == 48_000)
        #expect(config.channelConfiguration == 2)
        #expect(config.sbrSignal == .absent)
        #expect(config.bytes == extradata)
        #expect(config.audioFormat.sampleRate == 48_000)
        #expect(config.audioFormat.channelLayout == .stereo)
    }

    @Test func parsesTheExtradataFFmpegsEncoderActuallyWrites() throws {
        let directory = try TemporaryDirectory()
        let extradata = try ffmpegExtradata(in: directory, sampleRate: 48_000, channels: 2)
        #expect(extradata == [0x11, 0x90, 0x56, 0xE5, 0x00])
        let config = try AudioSpecificConfig(parsing: extradata)
        #expect(config.objectType == 2 && config.sampleRate == 48_000 && config.channelConfiguration == 2)
        #expect(config.bytes == extradata)
    }

    @Test(arguments: [
        (2, 44_100, 2, [0x12, 0x10] as [UInt8]),
        (2, 48_000, 1, [0x11, 0x88]),
        (1, 96_000, 6, [0x08, 0x30]),
        (4, 7_350, 7, [0x26, 0x38]),
        (2, 22_050, 2, [0x13, 0x90]),
        (2, 44_056, 2, [0x17, 0x80, 0x56, 0x0C, 0x10]),  // explicit 24-bit rate after index 15
        (42, 44_100, 2, [0xF9, 0x48, 0x40])  // object type escape: 31, then 42 - 32 in 6 bits
    ])
    func writesAndReadsBack(objectType: Int, sampleRate: Int, channels: Int, expected: [UInt8]) throws {
        let config = try AudioSpecificConfig(
            objectType: objectType, sampleRate: sampleRate, channelConfiguration: channels)
        #expect(config.bytes == expected)
        let parsed = try AudioSpecificConfig(parsing: expected)
        #expect(parsed == config)
        #expect(parsed.objectType == objectType)
        #expect(parsed.sampleRate == sampleRate)
        #expect(parsed.channelConfiguration == channels)
        #expect(parsed.samplingFrequencyIndex == AudioSpecificConfig.samplingFrequencyIndex(for: sampleRate))
    }

    @Test func explicitRateHasNoIndex() throws {
        let config = try AudioSpecificConfig(parsing: [0x17, 0x80, 0x56, 0x0C, 0x10])
        #expect(config.samplingFrequencyIndex == nil)
        #expect(config.sampleRate == 44_056)
    }

    @Test func readsBackwardCompatibleSBRAndPSSignals() throws {
        let sbr: [UInt8] = [0x13, 0x90, 0x56, 0xE5, 0xA0]
        let withSBR = try AudioSpecificConfig(parsing: sbr)
        #expect(withSBR.sampleRate == 22_050)
        #expect(withSBR.sbrSignal?.isPresent == true)
        #expect(withSBR.sbrSignal?.sampleRate == 44_100)
        #expect(withSBR.sbrSignal?.samplingFrequencyIndex == 4)
        #expect(withSBR.sbrSignal?.psPresent == nil)
        #expect(withSBR.bytes == sbr)

        let ps: [UInt8] = [0x13, 0x90, 0x56, 0xE5, 0xA5, 0x48, 0x80]
        let withPS = try AudioSpecificConfig(parsing: ps)
        #expect(withPS.sbrSignal?.psPresent == true)
        #expect(withPS.bytes == ps)
    }

    @Test func keepsExplicitHierarchicalHEAACBitsUnparsed() throws {
        // Object type 5 (SBR), core 22050 Hz stereo, SBR at 44100 Hz, then AAC LC: Apple's HE-AAC cookie.
        let cookie: [UInt8] = [0x2B, 0x92, 0x08, 0x00]
        let config = try AudioSpecificConfig(parsing: cookie)
        #expect(config.objectType == 5)
        #expect(config.sampleRate == 22_050)
        #expect(config.channelConfiguration == 2)
        #expect(config.bytes == cookie)
    }

    @Test func readsGASpecificConfigFlags() throws {
        // AAC LTP, 8000 Hz, mono, frameLengthFlag 1, dependsOnCoreCoder 1 with coreCoderDelay 1000.
        let cookie: [UInt8] = [0x25, 0x8E, 0x1F, 0x40]
        let config = try AudioSpecificConfig(parsing: cookie)
        #expect(config.objectType == 4)
        #expect(config.sampleRate == 8_000)
        #expect(config.channelConfiguration == 1)
        #expect(config.frameLengthFlag)
        #expect(config.dependsOnCoreCoder)
        #expect(config.coreCoderDelay == 1000)
        #expect(!config.extensionFlag)
        #expect(config.bytes == cookie)
        #expect(config.audioFormat.framesPerPacket == 960)
    }

    @Test func samplingFrequencyTableHasThirteenRates() {
        let rates = [
            96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350
        ]
        #expect(AudioSpecificConfig.samplingFrequencies == rates)
        for (index, rate) in rates.enumerated() {
            #expect(AudioSpecificConfig.samplingFrequencyIndex(for: rate) == index)
        }
        #expect(AudioSpecificConfig.samplingFrequencyIndex(for: 44_056) == nil)
        #expect(AudioSpecificConfig.samplingFrequencyIndex(for: 0) == nil)
    }

    @Test(arguments: [
        (1, ChannelLayout.mono, 1),
        (2, .stereo, 2),
        (3, .default(channelCount: 3), 3),
        (4, .default(channelCount: 4), 4),
        (5, .default(channelCount: 5), 5),
        (6, .surround51, 6),
        (7, .surround71, 8)
    ])
    func channelConfigurationGivesLayout(configuration: Int, layout: ChannelLayout, count: Int) throws {
        let config = try AudioSpecificConfig(objectType: 2, sampleRate: 48_000, channelConfiguration: configuration)
        #expect(config.channelLayout == layout)
        #expect(config.channelCount == count)
        #expect(AudioSpecificConfig.channelConfiguration(for: layout) == configuration)
        let format = config.audioFormat
        #expect(format.codec == .aac)
        #expect(format.sampleRate == 48_000)
        #expect(format.channelCount == count)
        #expect(format.framesPerPacket == 1024)
        #expect(format.magicCookie == config.bytes)
        #expect(format == AudioFormat.aac(sampleRate: 48_000, channelLayout: layout, audioSpecificConfig: config.bytes))
    }

    @Test func channelConfigurationZeroHasNoCount() throws {
        let config = try AudioSpecificConfig(objectType: 2, sampleRate: 48_000, channelConfiguration: 0)
        #expect(config.channelCount == nil)
        #expect(config.channelLayout == .unspecified(0))
    }

    @Test func truncatedConfigThrowsTruncated() {
        #expect(throws: MediaError(.truncated, "audioObjectType needs 5 bits but only 0 remain", byteOffset: 0)) {
            try AudioSpecificConfig(parsing: [UInt8]())
        }
        #expect(throws: MediaError(.truncated, "samplingFrequencyIndex needs 4 bits but only 3 remain", byteOffset: 0))
        {
            try AudioSpecificConfig(parsing: [0x12])
        }
        #expect(throws: MediaError(.truncated, "samplingFrequency needs 24 bits but only 15 remain", byteOffset: 1)) {
            try AudioSpecificConfig(parsing: [0x17, 0x80, 0x56])
        }
    }

    @Test func reservedSamplingIndexAndZeroRateAreInvalid() {
        #expect(throws: MediaError.invalidData("AudioSpecificConfig samplingFrequencyIndex 13 is reserved", at: 0)) {
            try AudioSpecificConfig(parsing: [0x16, 0x90])
        }
        #expect(throws: MediaError.invalidData("AudioSpecificConfig explicit samplingFrequency is 0", at: 0)) {
            try AudioSpecificConfig(parsing: [0x17, 0x80, 0x00, 0x00, 0x10])
        }
    }

    @Test(arguments: [(0, 48_000, 2), (96, 48_000, 2), (2, 0, 2), (2, 16_777_216, 2), (2, 48_000, 16), (2, 48_000, -1)])
    func outOfRangeFieldsAreRefused(objectType: Int, sampleRate: Int, channels: Int) {
        let error = #expect(throws: MediaError.self) {
            try AudioSpecificConfig(objectType: objectType, sampleRate: sampleRate, channelConfiguration: channels)
        }
        #expect(error?.code == .invalidArgument)
    }
}
