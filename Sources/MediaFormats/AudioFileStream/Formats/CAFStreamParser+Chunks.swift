import MediaCore

extension CAFStreamParser {
    /// A chunk after `data`: the awaited `pakt` (and `kuki`, `chan` before it), the same `pakt` again
    /// after a seek, or one to skip.
    mutating func chunkAfterData(
        _ input: inout ByteWindow, _ events: inout [AudioFileStreamEvent], type: String, offset: Int64, size: Int64
    ) throws(MediaError) -> Bool {
        if !isReady, type == "pakt" || type == "kuki" || type == "chan" {
            return try readChunk(&input, &events, type: type, offset: offset, size: size)
        }
        if type == "pakt", pakt?.offset == offset {
            skip(&input, type: type, offset: offset, size: size, from: offset)
            return true
        }
        events.append(.diagnostic(.chunkSkipped(type: type, byteOffset: offset, size: size)))
        skip(&input, type: type, offset: offset, size: size, from: offset)
        return true
    }

    /// Reads a `desc`, `kuki`, `pakt` or `chan` chunk (the parts of it that are used).
    mutating func readChunk(
        _ input: inout ByteWindow, _ events: inout [AudioFileStreamEvent], type: String, offset: Int64, size: Int64
    ) throws(MediaError) -> Bool {
        let wanted: Int64
        switch type {
        case "desc":
            guard size >= Int64(CAFAudioDescription.size) else {
                throw MediaError.invalidData(
                    "CAF 'desc' chunk of \(count: size, "byte") cannot hold its \(CAFAudioDescription.size)-byte description",
                    at: offset)
            }
            wanted = Int64(CAFAudioDescription.size)
        case "chan": wanted = min(size, Int64(CAFChannelLayoutChunk.headerSize))
        default:
            let limit = type == "pakt" ? Self.tableLimit : Self.cookieLimit
            guard size <= limit else {
                throw MediaError(
                    .unsupportedFormat,
                    "CAF '\(type)' chunk of \(count: size, "byte") is larger than the \(count: limit, "byte") a stream parser reads",
                    byteOffset: offset)
            }
            wanted = size
        }
        let header = CAFFile.chunkHeaderSize
        guard let bytes = input.peek(header + Int(wanted)) else {
            guard input.isFinished else { return false }
            throw MediaError.truncated(
                "CAF '\(type)' chunk", needed: Int(clamping: size), available: input.available - header, at: offset)
        }
        let body = Array(bytes.dropFirst(header))
        switch type {
        case "desc":
            let value = try CAFAudioDescription(parsing: body, at: offset + Int64(header))
            desc = (try CAFStreamFormat(value, at: offset), offset)
        case "kuki": cookie = (body, offset + Int64(header))
        case "pakt": pakt = (body, offset)
        default: chan = body
        }
        skip(&input, type: type, offset: offset, size: size, from: offset)
        if type == "pakt", audio != nil, !isReady {
            if held.isDeferred { lateChunksEnd = input.position }
            try ready(&events, fromHeld: true)
        }
        return true
    }
}
