import MediaCore

extension WAVEStreamParser {
    /// The most bytes of a `fmt ` chunk read into memory (the rest is skipped): enough for every field
    /// of `WAVE_FORMAT_EXTENSIBLE` and the IMA ADPCM extension.
    static let formatPrefix: Int64 = 64

    /// Reads the chunk header at the front of `input` and what follows from it.
    mutating func readChunk(_ input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) throws(MediaError)
        -> Bool
    {
        guard input.available >= 8 else {
            guard input.isFinished else { return false }
            return try endOfChunks(&input, into: &events)
        }
        let offset = input.position
        guard (0..<4).allSatisfy({ (0x20...0x7E).contains(input[$0]) }) else {
            if stage == .afterData {
                stage = .trailing(TrailingBytes(start: offset))
                return true
            }
            throw MediaError.invalidData(
                "expected a WAVE chunk header but found \(FourCC.describe(input.peek(upTo: 8)))", at: offset)
        }
        let type = input.fourCC(at: 0)
        let size = Int64(input.littleEndian(UInt32.self, at: 4))
        if stage == .chunks {
            switch type {
            case "fmt ": return try readFormat(&input, size: size, into: &events)
            case "ds64" where isRF64: return try readDataSizes(&input, size: size)
            case "fact": return try readFact(&input, size: size)
            case "data": return try readDataHeader(&input, size: size, into: &events)
            default: break
            }
        }
        events.append(.diagnostic(.chunkSkipped(type: type, byteOffset: offset, size: size)))
        skipping = SkippedChunk(type: type, offset: offset, size: size)
        input.skip(8 + size + (size & 1))
        return true
    }

    /// The chunk header and the first `count` bytes of the body, consumed, or `nil` while they have not
    /// all arrived. The rest of the chunk (and its pad byte) is skipped.
    private mutating func takeChunk(_ input: inout ByteWindow, type: String, size: Int64, prefix count: Int64)
        throws(MediaError) -> [UInt8]?
    {
        let offset = input.position
        guard let bytes = input.take(8 + Int(count)) else {
            guard input.isFinished else { return nil }
            throw MediaError.truncated(
                "WAV '\(type)' chunk", needed: Int(size), available: input.available - 8, at: offset)
        }
        skipping = SkippedChunk(type: type, offset: offset, size: size)
        input.skip(size - count + (size & 1))
        return Array(bytes.dropFirst(8))
    }

    /// Reads `fmt `: the first one gives the format, a later one is ignored with a note.
    private mutating func readFormat(_ input: inout ByteWindow, size: Int64, into events: inout [AudioFileStreamEvent])
        throws(MediaError) -> Bool
    {
        let offset = input.position
        guard let body = try takeChunk(&input, type: "fmt ", size: size, prefix: min(size, Self.formatPrefix)) else {
            return false
        }
        guard format == nil else {
            ignoredFormatChunks.append(offset)
            events.append(
                .diagnostic(.note("a second 'fmt ' chunk was ignored: the first one applies", byteOffset: offset)))
            return true
        }
        let chunk = try WAVFormatChunk(parsing: body, declaredSize: size, chunkOffset: offset)
        if pcmOnly { _ = try chunk.pcmSampleType(chunkOffset: offset) }
        let parsed = try WAVEStreamFormat(chunk, body: body, chunkOffset: offset)
        events += parsed.diagnostics.map { .diagnostic($0) }
        format = parsed
        formatChunk = (chunk, offset)
        return true
    }

    /// Reads RF64's `ds64`: the 64-bit RIFF size, data size and sample count (its table is skipped).
    private mutating func readDataSizes(_ input: inout ByteWindow, size: Int64) throws(MediaError) -> Bool {
        guard size >= 24 else {
            throw MediaError.invalidData(
                "RF64 'ds64' chunk of \(count: size, "byte") is shorter than its 24 bytes of sizes", at: input.position)
        }
        guard let body = try takeChunk(&input, type: "ds64", size: size, prefix: 24) else { return false }
        func field(_ at: Int) -> Int64 {
            Int64(clamping: body[at..<(at + 8)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }
        sizes = DataSizes(riffSize: field(0), dataSize: field(8), sampleCount: field(16))
        return true
    }

    /// Reads `fact`: the frame count (0xFFFFFFFF in RF64 defers to `ds64`).
    private mutating func readFact(_ input: inout ByteWindow, size: Int64) throws(MediaError) -> Bool {
        guard let body = try takeChunk(&input, type: "fact", size: size, prefix: min(size, 4)) else { return false }
        guard body.count == 4 else { return true }
        let frames = body.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        if frames == 0xFFFF_FFFF, isRF64, let sizes {
            factFrames = sizes.sampleCount
        } else {
            factFrames = Int64(frames)
        }
        return true
    }

    /// Reads the `data` chunk header and announces the properties.
    private mutating func readDataHeader(
        _ input: inout ByteWindow, size field: Int64, into events: inout [AudioFileStreamEvent]
    ) throws(MediaError) -> Bool {
        let offset = input.position
        guard let format else {
            throw MediaError.invalidData("WAV 'data' chunk comes before any 'fmt ' chunk", at: offset)
        }
        dataSizeField = field
        var size: Int64? = field
        if field == 0xFFFF_FFFF, isRF64, let sizes, sizes.dataSize > 0 { size = sizes.dataSize }
        if field == 0 || (field == 0xFFFF_FFFF && size == field) {
            size = nil
            events.append(
                .diagnostic(
                    .note(
                        "the 'data' chunk's size is \(field == 0 ? "0" : "0xFFFFFFFF") (a stream being recorded): the audio runs to the end of the input",
                        byteOffset: offset)))
        }
        input.skip(8)
        skipping = nil
        let asbd = format.description
        let bytesPerPacket = Int64(asbd.bytesPerPacket), framesPerPacket = Int64(asbd.framesPerPacket)
        let frames = factFrames.flatMap { $0 > 0 && framesPerPacket > 1 ? $0 : nil }
        let packets =
            size.map { $0 / bytesPerPacket }
            ?? frames.map { $0 / framesPerPacket + ($0 % framesPerPacket == 0 ? 0 : 1) }
        var table: AudioFilePacketTableInfo?
        if let frames, let packets {
            let (total, overflow) = packets.multipliedReportingOverflow(by: framesPerPacket)
            if !overflow && frames <= total && frames > total - framesPerPacket {
                table = AudioFilePacketTableInfo(primingFrames: 0, remainderFrames: total - frames, validFrames: frames)
            } else {
                events.append(
                    .diagnostic(
                        .note(
                            "the 'fact' chunk's \(count: frames, "frame") do not fit \(count: packets, "packet") of \(count: framesPerPacket, "frame"); it was ignored",
                            byteOffset: offset)))
            }
        }
        let data = CBRAudioData(
            format: asbd, dataOffset: offset + 8, declaredSize: size, packetCount: packets, batching: batching)
        data.announce(asbd, layout: format.channelLayout, packetTable: table, into: &events)
        audio = data
        stage = .data
        return true
    }

    /// At the end of the input where a chunk header belongs: the end of the file after the data, an
    /// error before it.
    private mutating func endOfChunks(_ input: inout ByteWindow, into events: inout [AudioFileStreamEvent])
        throws(MediaError) -> Bool
    {
        let fileEnd = input.position - input.pendingSkip
        let cut = skipping.flatMap { fileEnd < $0.offset + 8 + $0.size ? $0 : nil }
        skipping = nil
        if stage == .afterData {
            stage = .done
            if let cut {
                events.append(
                    .diagnostic(
                        .note(
                            "the '\(cut.type)' chunk after the audio declares \(count: cut.size, "byte") but the file ends after \(max(0, fileEnd - cut.offset - 8))",
                            byteOffset: cut.offset)))
                return true
            }
            guard input.available > 0 else { return false }
            events.append(.diagnostic(.trailingBytesSkipped(byteOffset: input.position, count: Int64(input.available))))
            input.skip(Int64(input.available))
            return true
        }
        if let cut {
            throw MediaError.truncated(
                "WAV '\(cut.type)' chunk", needed: Int(clamping: cut.size),
                available: Int(clamping: max(0, fileEnd - cut.offset - 8)), at: cut.offset)
        }
        if input.available > 0 {
            throw MediaError.truncated("WAV chunk header", needed: 8, available: input.available, at: input.position)
        }
        // A file cut at a chunk boundary looks complete; the RIFF size tells it apart.
        if riffSize != 0xFFFF_FFFF && 8 + riffSize > fileEnd {
            throw MediaError(
                .truncated,
                "WAV file ends after \(count: fileEnd, "byte"), before any 'data' chunk, though its RIFF header declares \(8 + riffSize)",
                byteOffset: fileEnd)
        }
        throw MediaError.invalidData("WAV file ends after its last chunk without a 'data' chunk", at: fileEnd)
    }
}
