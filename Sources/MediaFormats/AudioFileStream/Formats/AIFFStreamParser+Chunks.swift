import MediaCore

extension AIFFStreamParser {
    /// A `COMM` chunk: read once (met again at the same offset after a seek, it is passed over).
    mutating func commonChunk(
        _ input: inout ByteWindow, _ events: inout [AudioFileStreamEvent], offset: Int64, size: Int64, pad: Int64
    ) throws(MediaError) -> Bool {
        if let comm {
            guard comm.offset == offset else {
                throw MediaError.invalidData(
                    "AIFF file has a second 'COMM' chunk (the first is at byte offset \(comm.offset))", at: offset)
            }
            // Met again after a seek into the audio that precedes it.
            skip(&input, type: "COMM", offset: offset, size: size, pad: pad, from: offset)
            return true
        }
        guard size >= Int64(AIFFCommonChunk.aiffSize) else {
            throw MediaError.invalidData(
                "AIFF 'COMM' chunk of \(count: size, "byte") cannot hold its 18 bytes of fields", at: offset)
        }
        let wanted = Int(min(size, Int64(isAIFC ? AIFFCommonChunk.aifcSize : AIFFCommonChunk.aiffSize)))
        guard let bytes = input.peek(8 + wanted) else {
            guard input.isFinished else { return false }
            throw MediaError.truncated("AIFF 'COMM' chunk", needed: 8 + wanted, available: input.available, at: offset)
        }
        let chunk = try AIFFCommonChunk(parsing: bytes.dropFirst(8), isAIFC: isAIFC, at: offset + 8)
        skip(&input, type: "COMM", offset: offset, size: size, pad: pad, from: offset)
        comm = (chunk, offset)
        if isAIFC && wanted < AIFFCommonChunk.aifcSize {
            events.append(
                .diagnostic(
                    .note("The AIFF-C 'COMM' chunk has no compression type: read as 'NONE'", byteOffset: offset)))
        }
        events.append(.dataFormat(chunk.format))
        events.append(.channelLayout(.default(channelCount: Int(chunk.format.channelsPerFrame))))
        if sound != nil {
            if held.isDeferred { lateChunksEnd = input.position }
            try startData(&events, fromHeld: true)
        }
        return true
    }

    /// An `SSND` chunk's header: starts the packets, or holds the audio until `COMM`.
    mutating func soundChunk(
        _ input: inout ByteWindow, _ events: inout [AudioFileStreamEvent], offset: Int64, size: Int64
    ) throws(MediaError) -> Bool {
        if let sound {
            throw MediaError.invalidData(
                "AIFF file has a second 'SSND' chunk (the first is at byte offset \(sound.headerOffset))", at: offset)
        }
        guard size == 0 || size >= 8 else {
            throw MediaError.invalidData(
                "AIFF 'SSND' chunk of \(count: size, "byte") cannot hold its 8-byte offset and blockSize", at: offset)
        }
        guard input.available >= 16 else {
            guard input.isFinished else { return false }
            throw MediaError.truncated("AIFF 'SSND' chunk header", needed: 16, available: input.available, at: offset)
        }
        let skipBytes = Int64(input.bigEndian(UInt32.self, at: 8))
        guard size == 0 || skipBytes <= size - 8 else {
            throw MediaError.invalidData(
                "AIFF 'SSND' offset of \(count: skipBytes, "byte") runs past the chunk's \(count: size, "byte")",
                at: offset + 8)
        }
        let found = SoundData(
            headerOffset: offset, declaredSize: size, audioStart: offset + 16 + skipBytes,
            audioSize: size == 0 ? nil : size - 8 - skipBytes)
        sound = found
        input.skip(16 + skipBytes)
        skipped = SkippedChunk(
            container: "AIFF", type: "SSND", headerOffset: offset, bodyOffset: offset + 8, declaredSize: size,
            tolerance: 0)
        if size == 0 {
            events.append(
                .diagnostic(
                    .note(
                        "The 'SSND' chunk's size is 0 (a writer that could not go back): its audio runs to the end of the file",
                        byteOffset: offset)))
        }
        if comm != nil {
            try startData(&events, fromHeld: false)
            return true
        }
        guard let audioSize = found.audioSize else {
            throw MediaError.invalidData(
                "AIFF 'SSND' chunk of unknown size (0) comes before the 'COMM' chunk, so its audio cannot be found",
                at: offset)
        }
        let limit = batching.maxHeldBytes
        held = try HeldAudio(size: audioSize, at: found.audioStart, limit: limit) {
            MediaError(
                .unsupportedFormat,
                "AIFF 'SSND' chunk at byte offset \(offset) comes before the 'COMM' chunk and holds \(count: audioSize, "byte") of audio (byte offsets \(found.audioStart) to \(found.audioStart + audioSize)); the parser holds at most \(count: limit, "byte") (Batching.maxHeldBytes) until 'COMM' arrives",
                byteOffset: offset)
        }
        phase = .holding
        return true
    }

    /// Copies `SSND` audio that came before `COMM` into ``held``.
    mutating func hold(_ input: inout ByteWindow) throws(MediaError) -> Bool {
        let count = held.take(from: &input)
        if held.isComplete, let sound {
            let pad = sound.declaredSize & 1
            input.skip(pad)
            skipped = SkippedChunk(
                container: "AIFF", type: "SSND", headerOffset: sound.headerOffset, bodyOffset: sound.headerOffset + 8,
                declaredSize: sound.declaredSize, tolerance: pad)
            phase = .chunkHeader
            return true
        }
        if input.isFinished, let sound {
            throw MediaError.truncated(
                "AIFF 'SSND' chunk (before any 'COMM' chunk)", needed: Int(clamping: sound.declaredSize),
                available: Int(clamping: input.position - input.pendingSkip - sound.headerOffset - 8),
                at: sound.headerOffset)
        }
        return count > 0
    }
}
