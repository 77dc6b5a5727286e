import MediaCore
import MediaFormats
import Testing

/// The CAF `desc` and `pakt` chunks, and the stream parser's events, as a person reads them.
@Suite(.timeLimit(.minutes(1))) struct CAFDescriptionTests {
    @Test func aDescReadsLikeAfinfo() {
        let aac = CAFAudioDescription(
            sampleRate: 44_100, formatID: CAFAudioDescription.mpeg4AAC, formatFlags: 0, bytesPerPacket: 0,
            framesPerPacket: 1024, channelsPerFrame: 2, bitsPerChannel: 0)
        #expect(aac.description == "'aac ' 44100 Hz 2 ch 1024 frames/packet variable bytes/packet")
        let pcm = CAFAudioDescription(
            sampleRate: 48_000, formatID: CAFAudioDescription.linearPCM,
            formatFlags: CAFAudioDescription.flagIsLittleEndian, bytesPerPacket: 6, framesPerPacket: 1,
            channelsPerFrame: 2, bitsPerChannel: 24)
        #expect(pcm.description == "'lpcm' 48000 Hz 2 ch 24 bit integer little-endian")
    }

    @Test func aPacketTableShowsItsCounts() {
        let table = CAFPacketTable(
            numberPackets: 3, numberValidFrames: 1000, primingFrames: 2112, remainderFrames: 960,
            packetSizes: [10, 20, 30], packetFrames: [])
        #expect(table.description == "3 packets, 1000 valid frames, 2112 priming, 960 remainder")
    }

    @Test func streamEventsShowTheirNumbers() {
        #expect(AudioFileStreamEvent.dataOffset(4096).description == "audio data at byte offset 4096")
        #expect(AudioFileStreamEvent.audioDataPacketCount(1).description == "audio data of 1 packet")
        #expect(AudioFileStreamEvent.readyToProducePackets.description == "ready to produce packets")
    }
}
