import MediaPipeline
import MediaTestSupport
import Testing

/// An ADTS file has nowhere to store encoder priming and padding; a caller who knows them gives them to
/// `ADTSReader`, and decoding is then as exact as from a CAF file whose packet table holds them.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ADTSGaplessTests {
    static let inputFrames = 10_000  // not a multiple of 1024: the last packet has padding

    /// The encoder's packets for `inputFrames` frames of a 440 Hz stereo tone at 44.1 kHz.
    func encodedPackets() throws -> [MediaSample] {
        var pipeline = Pipeline(
            source: try ToneGenerator(sampleRate: 44_100, channels: 2, length: .frames(Int64(Self.inputFrames))),
            stages: [try AACEncoder(bitRate: 128_000)], sink: CollectingSink())
        try pipeline.run()
        return try #require(pipeline.finishedSink as? CollectingSink).samples
    }

    func mux(_ packets: [MediaSample], into sink: any MediaSink) throws {
        var pipeline = Pipeline(source: ArraySource(packets), sink: sink)
        try pipeline.run()
    }

    func decode(_ source: any MediaSource) throws -> [Float] {
        var pipeline = Pipeline(source: source, stages: [AACDecoder(outputFormat: .f32)], sink: CollectingSink())
        try pipeline.run()
        let samples = try #require(pipeline.finishedSink as? CollectingSink).samples
        return try samples.flatMap { try $0.pcm(as: Float.self) }
    }

    @Test func knownPrimingAndRemainderDecodeExactlyTheInputFrames() throws {
        let packets = try encodedPackets()
        let priming = packets.reduce(0) { $0 + $1.trimAtStart }
        let remainder = packets.reduce(0) { $0 + $1.trimAtEnd }
        #expect(priming == 1024)
        #expect(remainder > 0 && remainder < 1024)

        let adts = MemoryOutput()
        try mux(packets, into: ADTSMuxer(output: adts))
        let caf = MemoryOutput()
        try mux(packets, into: CAFMuxer(output: caf))

        let reader = try ADTSReader(bytes: adts.bytes, priming: priming, remainder: remainder)
        let fromADTS = try decode(reader)
        let fromCAF = try decode(try CAFReader(bytes: caf.bytes))
        #expect(fromADTS.count == Self.inputFrames * 2)
        #expect(fromCAF.count == Self.inputFrames * 2)
        #expect(fromADTS == fromCAF)  // the same frames, from the first on

        // Without them the decoded stream carries the priming and padding: what a plain .aac gives.
        let untrimmed = try decode(ADTSReader(bytes: adts.bytes))
        #expect(untrimmed.count == (Self.inputFrames + priming + remainder) * 2)
        #expect(Array(untrimmed[(priming * 2)..<(priming * 2 + 64)]) == Array(fromADTS[0..<64]))
    }

    @Test func trimsSpillAcrossPacketsAndMarkTheRightOnes() throws {
        let packets = try encodedPackets()
        let adts = MemoryOutput()
        try mux(packets, into: ADTSMuxer(output: adts))
        // 2112 frames of priming (Apple's encoder delay) cover two packets and 64 frames of the third;
        // 1500 frames of remainder cover the last packet and 476 frames of the one before.
        let reader = try ADTSReader(bytes: adts.bytes, priming: 2112, remainder: 1500)
        var read: [MediaSample] = []
        while let packet = try reader.next() { read.append(packet) }
        #expect(read.count == packets.count)
        #expect(read.prefix(4).map(\.trimAtStart) == [1024, 1024, 64, 0])
        #expect(read.suffix(3).map(\.trimAtEnd) == [0, 476, 1024])
        #expect(read.reduce(0) { $0 + $1.trimAtStart } == 2112)
        #expect(read.reduce(0) { $0 + $1.trimAtEnd } == 1500)
    }

    @Test func refusesNegativeTrims() {
        #expect(throws: MediaError.self) { try ADTSReader(bytes: [], priming: -1) }
        #expect(throws: MediaError.self) { try ADTSReader(bytes: [], priming: 0, remainder: -5) }
    }
}
