import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// The parser on damaged input: it must recover, report exactly what it skipped, never hang or trap, and
/// give the same result however the input is split.
@Suite(.timeLimit(.minutes(2))) struct ADTSParserDamageTests {
    /// FFmpeg's 48-frame stream, its frame ranges, and the packets of the undamaged stream.
    struct Clean {
        let stream: [UInt8]
        let frames: [Range<Int>]
        let packets: [MediaSample]

        init() throws {
            let directory = try TemporaryDirectory()
            stream = try ffmpegADTS(in: directory)
            frames = frameRanges(stream)
            packets = try parseADTS(stream).packets
            try #require(frames.count == 48 && packets.count == 48)
        }
    }

    @Test func brokenSyncWordMidStreamSkipsThatFrameOnly() throws {
        let clean = try Clean()
        let broken = clean.frames[10]
        var damaged = clean.stream
        damaged[broken.lowerBound] = 0x00

        let outcome = try parseADTS(damaged)
        #expect(outcome.error == nil)
        #expect(
            outcome.diagnostics == [.resynchronized(byteOffset: Int64(broken.lowerBound), skippedBytes: broken.count)])
        try #require(outcome.packets.count == 47)
        #expect(
            outcome.packets.map(\.data) == Array(clean.packets.map(\.data)[0..<10] + clean.packets.map(\.data)[11...]))
        #expect(outcome.packets[10].flags == [.keyframe, .discontinuity])
        #expect(outcome.packets.enumerated().allSatisfy { $0.offset == 10 || $0.element.flags == [.keyframe] })
        #expect(
            outcome.diagnostics.first?.description
                == "Skipped \(broken.count) bytes at byte offset \(broken.lowerBound) to resynchronise to the next ADTS frame."
        )
    }

    @Test func frameLengthZeroDoesNotHangAndResynchronises() throws {
        let clean = try Clean()
        let broken = clean.frames[20]
        let damaged = settingFrameLength(clean.stream, at: broken.lowerBound, to: 0)

        let outcome = try parseADTS(damaged)
        #expect(outcome.error == nil)
        #expect(
            outcome.diagnostics == [.resynchronized(byteOffset: Int64(broken.lowerBound), skippedBytes: broken.count)])
        try #require(outcome.packets.count == 47)
        #expect(outcome.packets[20].data == clean.packets[21].data)
        #expect(outcome.packets[20].flags.contains(.discontinuity))
    }

    @Test func everyFrameLengthZeroIsGarbage() throws {
        // Headers that would loop forever in a parser that trusts aac_frame_length = 0.
        let header = settingFrameLength(
            ADTSHeader(objectType: 2, samplingFrequencyIndex: 3, channelConfiguration: 2, payloadLength: 0).bytes,
            at: 0, to: 0)
        let stream = Array([[UInt8]](repeating: header, count: 50).joined())
        let outcome = try parseADTS(stream)
        #expect(outcome.packets.isEmpty)
        #expect(outcome.error == MediaError.invalidData("no ADTS sync word found in 350 bytes", at: 0))
    }

    @Test(arguments: [1000, 8191])
    func damagedLongerFrameLengthCostsOnlyThatFrame(declaredLength: Int) throws {
        let clean = try Clean()
        let broken = clean.frames[10]
        let damaged = settingFrameLength(clean.stream, at: broken.lowerBound, to: declaredLength)

        let outcome = try parseADTS(damaged)
        #expect(
            outcome.diagnostics == [.resynchronized(byteOffset: Int64(broken.lowerBound), skippedBytes: broken.count)])
        try #require(outcome.packets.count == 47)
        #expect(
            outcome.packets.map(\.data) == Array(clean.packets.map(\.data)[0..<10] + clean.packets.map(\.data)[11...]))
        #expect(outcome.packets[10].flags == [.keyframe, .discontinuity])
    }

    @Test func damagedLengthRunningPastTheEndCostsOnlyThatFrame() throws {
        let clean = try Clean()
        let broken = clean.frames[40]
        let damaged = settingFrameLength(clean.stream, at: broken.lowerBound, to: 8000)
        #expect(broken.lowerBound + 8000 > damaged.count)

        let outcome = try parseADTS(damaged)
        #expect(
            outcome.diagnostics == [.resynchronized(byteOffset: Int64(broken.lowerBound), skippedBytes: broken.count)])
        #expect(outcome.packets.count == 47)
    }

    @Test func damagedShorterFrameLengthIsEmittedThenResynchronised() throws {
        let clean = try Clean()
        let broken = clean.frames[10]
        let damaged = settingFrameLength(clean.stream, at: broken.lowerBound, to: broken.count - 50)

        let outcome = try parseADTS(damaged)
        // No confirmed frame starts inside the shortened frame, so it is emitted as declared; the 50
        // bytes after it are skipped.
        #expect(outcome.diagnostics == [.resynchronized(byteOffset: Int64(broken.upperBound - 50), skippedBytes: 50)])
        try #require(outcome.packets.count == 48)
        #expect(outcome.packets[10].data == Array(clean.packets[10].data.dropLast(50)))
        #expect(outcome.packets[11].data == clean.packets[11].data)
        #expect(outcome.packets[11].flags == [.keyframe, .discontinuity])
    }

    @Test func damagedFormatBitsInOneHeaderCostOnlyThatFrame() throws {
        let clean = try Clean()
        let broken = clean.frames[10]
        var damaged = clean.stream
        damaged[broken.lowerBound + 2] &= 0xC3  // sampling_frequency_index 0 (96 kHz) instead of 3

        let outcome = try parseADTS(damaged)
        #expect(
            outcome.diagnostics == [.resynchronized(byteOffset: Int64(broken.lowerBound), skippedBytes: broken.count)])
        try #require(outcome.packets.count == 47)
        #expect(outcome.packets.allSatisfy { $0.format == clean.packets[0].format })
        #expect(outcome.packets[10].data == clean.packets[11].data)
        #expect(outcome.packets[10].flags == [.keyframe, .discontinuity])
    }

    @Test func frameRunningPastTheEndIsReportedNotEmitted() throws {
        let clean = try Clean()
        let last = clean.frames[47]
        let damaged = settingFrameLength(clean.stream, at: last.lowerBound, to: last.count + 100)

        let outcome = try parseADTS(damaged)
        #expect(outcome.error == nil)
        #expect(
            outcome.diagnostics == [
                .truncatedFrame(byteOffset: Int64(last.lowerBound), declared: last.count + 100, available: last.count)
            ])
        #expect(outcome.packets == Array(clean.packets.prefix(47)))
        #expect(outcome.bytesConsumed == Int64(clean.stream.count))
    }

    @Test func streamCutInsideTheLastFrameReportsTheCut() throws {
        let clean = try Clean()
        let last = clean.frames[47]
        let cut = Array(clean.stream.dropLast(50))

        let outcome = try parseADTS(cut)
        #expect(
            outcome.diagnostics == [
                .truncatedFrame(byteOffset: Int64(last.lowerBound), declared: last.count, available: last.count - 50)
            ])
        try #require(outcome.packets.count == 47)
    }

    @Test func trailingGarbageIsReported() throws {
        let clean = try Clean()
        let outcome = try parseADTS(clean.stream + [UInt8](repeating: 0x00, count: 100) + [0xFF, 0xF1, 0x50])
        #expect(outcome.error == nil)
        #expect(outcome.diagnostics == [.trailingBytesSkipped(byteOffset: Int64(clean.stream.count), count: 103)])
        #expect(outcome.packets == clean.packets)
    }

    @Test func leadingGarbageIsSkippedAndFlagged() throws {
        let clean = try Clean()
        // Garbage that contains a valid-looking header the next bytes do not confirm.
        let decoy = ADTSHeader(objectType: 2, samplingFrequencyIndex: 3, channelConfiguration: 2, payloadLength: 20)
            .bytes
        let garbage = [UInt8](repeating: 0x55, count: 40) + decoy + [UInt8](repeating: 0xAA, count: 33)
        let outcome = try parseADTS(garbage + clean.stream)
        #expect(outcome.diagnostics == [.resynchronized(byteOffset: 0, skippedBytes: garbage.count)])
        try #require(outcome.packets.count == 48)
        #expect(outcome.packets.map(\.data) == clean.packets.map(\.data))
        #expect(outcome.packets[0].flags == [.keyframe, .discontinuity])
        #expect(outcome.packets[0].timing.presentationTime.value == 0)
    }

    @Test func garbageOnlyThrowsInvalidData() throws {
        var state: UInt32 = 12345
        let garbage = (0..<5000).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16) & 0x7F  // never 0xFF, so never a sync word
        }
        let outcome = try parseADTS(garbage)
        #expect(outcome.packets.isEmpty)
        #expect(outcome.error == MediaError.invalidData("no ADTS sync word found in 5000 bytes", at: 0))
        #expect(outcome.diagnostics == [.trailingBytesSkipped(byteOffset: 0, count: 5000)])

        let reader = ADTSReader(bytes: garbage)
        let error = #expect(throws: MediaError.self) { try reader.next() }
        #expect(error?.code == .invalidData)
        #expect(error?.stage == "ADTSReader")
        #expect(error?.byteOffset == 0)
    }

    @Test func emptyInputThrowsInvalidData() throws {
        let outcome = try parseADTS([])
        #expect(outcome.error == MediaError.invalidData("no ADTS sync word found in 0 bytes", at: 0))
    }

    @Test func truncatedID3TagIsReported() throws {
        // An ID3v2 tag declaring 1000 body bytes, of which 20 arrive.
        let tag: [UInt8] = [0x49, 0x44, 0x33, 4, 0, 0, 0x00, 0x00, 0x07, 0x68] + [UInt8](repeating: 0, count: 20)
        let outcome = try parseADTS(tag)
        #expect(
            outcome.diagnostics == [
                .id3TagSkipped(byteOffset: 0, length: 1010),
                .truncatedID3Tag(byteOffset: 0, declared: 1010, available: 30)
            ])
        #expect(outcome.error?.code == .invalidData)
    }

    @Test func frameWithSeveralBlocksAndCRCsIsSkipped() throws {
        var header = ADTSHeader(objectType: 2, samplingFrequencyIndex: 3, channelConfiguration: 2, payloadLength: 4)
        let good = header.bytes + [1, 2, 3, 4]
        header.protectionAbsent = false
        header.rawDataBlocks = 2
        header.frameLength = 20
        let multi = header.bytes + [UInt8](repeating: 9, count: 11)
        let outcome = try parseADTS(good + multi + good)
        #expect(outcome.diagnostics == [.unsupportedFrame(byteOffset: 11, frameLength: 20, rawDataBlocks: 2)])
        try #require(outcome.packets.count == 2)
        #expect(outcome.packets[1].flags == [.keyframe, .discontinuity])
    }

    @Test func pushingAfterFinishThrows() {
        var parser = ADTSParser()
        parser.finish()
        parser.push([0xFF, 0xF1])
        #expect(throws: MediaError(.invalidArgument, "ADTSParser was given 2 bytes after finish()")) {
            try parser.next()
        }
    }

    @Test func consumesEachFrameOnceTheNextHeaderHasArrived() throws {
        let clean = try Clean()
        var parser = ADTSParser()
        var packets = 0
        for start in stride(from: 0, to: clean.stream.count, by: 1000) {
            let end = min(clean.stream.count, start + 1000)
            parser.push(clean.stream[start..<end])
            while try parser.next() != nil { packets += 1 }
            // A frame is taken once the 7 header bytes of the next one confirm it; only the rest stays
            // buffered.
            let confirmed = clean.frames.filter { $0.upperBound + 7 <= end }
            #expect(parser.bytesConsumed == Int64(confirmed.last?.upperBound ?? 0))
            #expect(packets == confirmed.count)
        }
        parser.finish()
        while try parser.next() != nil { packets += 1 }
        #expect(packets == 48)
        #expect(parser.bytesConsumed == Int64(clean.stream.count))
        #expect(parser.diagnostics.isEmpty)
    }
}
