import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// What ADTS cannot carry: the muxer refuses it with a typed error, writes nothing for that packet and
/// leaves what it wrote before intact.
@Suite(.timeLimit(.minutes(2))) struct ADTSMuxerRefusalTests {
    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let packet: @Sendable () throws -> MediaSample
        let code: MediaError.Code
        let message: String
        var testDescription: String { name }
    }

    static let lc48 = [UInt8]([0x11, 0x90, 0x56, 0xE5, 0x00])

    static let refusals: [Refusal] = [
        Refusal(
            name: "9000-byte frame",
            packet: { aacPacket([UInt8](repeating: 1, count: 8993), config: try AudioSpecificConfig(parsing: lc48)) },
            code: .invalidArgument,
            message: "ADTS frame of 9000 bytes exceeds the 8191-byte aac_frame_length limit"),
        Refusal(
            name: "8192-byte frame",
            packet: { aacPacket([UInt8](repeating: 1, count: 8185), config: try AudioSpecificConfig(parsing: lc48)) },
            code: .invalidArgument,
            message: "ADTS frame of 8192 bytes exceeds the 8191-byte aac_frame_length limit"),
        Refusal(
            name: "44056 Hz",
            packet: {
                aacPacket(
                    [1], config: try AudioSpecificConfig(objectType: 2, sampleRate: 44_056, channelConfiguration: 2))
            },
            code: .unsupportedFormat,
            message: "sample rate 44056 Hz has no ADTS sampling_frequency_index"),
        Refusal(
            name: "object type 5",
            packet: {
                aacPacket(
                    [1], config: try AudioSpecificConfig(objectType: 5, sampleRate: 48_000, channelConfiguration: 2))
            },
            code: .unsupportedFormat,
            message:
                "audio object type 5 (SBR) does not fit the 2-bit ADTS profile field, which holds object types 1 to 4"),
        Refusal(
            name: "channel configuration 0",
            packet: {
                aacPacket(
                    [1], config: try AudioSpecificConfig(objectType: 2, sampleRate: 48_000, channelConfiguration: 0))
            },
            code: .unsupportedFormat,
            message: "channel configuration 0 cannot be written in ADTS, which takes 1 to 7"),
        Refusal(
            name: "channel configuration 8",
            packet: {
                aacPacket(
                    [1], config: try AudioSpecificConfig(objectType: 2, sampleRate: 48_000, channelConfiguration: 8))
            },
            code: .unsupportedFormat,
            message: "channel configuration 8 cannot be written in ADTS, which takes 1 to 7"),
        Refusal(
            name: "PCM",
            packet: {
                MediaSample(
                    format: .audio(.pcm(.s16, sampleRate: 48_000, channels: 2)), data: [0, 0, 0, 0],
                    timing: .audio(startFrame: 0, frameCount: 1, sampleRate: 48_000), frameCount: 1)
            },
            code: .formatMismatch,
            message: "ADTSMuxer takes AAC audio but was given s16 48000 Hz stereo"),
        Refusal(
            name: "AAC without cookie",
            packet: {
                MediaSample(
                    format: .audio(.aac(sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [])),
                    data: [1],
                    timing: .audio(startFrame: 0, frameCount: 1024, sampleRate: 48_000), frameCount: 1024)
            },
            code: .invalidArgument,
            message:
                "AAC format aac 48000 Hz stereo has no AudioSpecificConfig magic cookie to derive the ADTS header from")
    ]

    @Test(arguments: refusals)
    func refusesWithTypedErrorAndKeepsEarlierBytes(refusal: Refusal) throws {
        let config = try AudioSpecificConfig(parsing: Self.lc48)
        let output = MemoryOutput()
        let muxer = CheckedSink(ADTSMuxer(output: output))  // the guard stamps the stage and sample index
        try muxer.write(aacPacket([1, 2, 3], config: config, index: 0))
        try muxer.write(aacPacket([4, 5], config: config, index: 1))
        let before = output.bytes
        #expect(before.count == 7 + 3 + 7 + 2)

        let bad = try refusal.packet()
        let error = #expect(throws: MediaError.self) { try muxer.write(bad) }
        #expect(error?.code == refusal.code)
        #expect(error?.message == refusal.message)
        #expect(error?.sampleIndex == 2)
        #expect(error?.stage == "ADTSMuxer")
        #expect(output.bytes == before)

        // The guard keeps the muxer failed, but finishing still closes a valid stream.
        let again = #expect(throws: MediaError.self) { try muxer.write(aacPacket([6], config: config)) }
        #expect(again?.code == .stageFinished)
        try muxer.finish()
        #expect(output.bytes == before)
        #expect(try parseADTS(output.bytes).packets.map(\.data) == [[1, 2, 3], [4, 5]])
    }

    @Test func largestFrameIsAccepted() throws {
        let output = MemoryOutput()
        let muxer = ADTSMuxer(output: output)
        try muxer.write(
            aacPacket([UInt8](repeating: 7, count: 8184), config: try AudioSpecificConfig(parsing: Self.lc48)))
        #expect(output.bytes.count == 8191)
        #expect(try ADTSHeader(parsing: output.bytes).frameLength == 8191)
    }

    @Test func callsAfterFinishThrowStageFinished() throws {
        let config = try AudioSpecificConfig(parsing: Self.lc48)
        let output = MemoryOutput()
        let muxer = CheckedSink(ADTSMuxer(output: output))
        try muxer.write(aacPacket([1], config: config))
        try muxer.finish()
        let stageFinished = MediaError.stageFinished("ADTSMuxer").inStage("ADTSMuxer", sampleIndex: 1)
        #expect(throws: stageFinished) { try muxer.write(aacPacket([2], config: config)) }
        #expect(throws: stageFinished) { try muxer.finish() }
        #expect(output.bytes.count == 8)
        // finish closed the output.
        #expect(throws: MediaError.self) { try output.write([0]) }
    }
}
