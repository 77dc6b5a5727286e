import MediaCore

/// What ``CAFReader`` collects when it walks a file with ``CAFStreamParser`` (see
/// ``CAFStreamParser/init(walkingFileOf:)``): every chunk, the `desc` chunk as written and the `info`
/// strings, beside the `kuki`, `pakt`, `chan` and `data` chunks the parser keeps for a stream parse.
struct CAFFileWalk: Sendable {
    /// The file's size: every chunk must fit in it.
    let fileSize: Int64
    /// Every chunk header in file order: its type (bytes outside printable ASCII as `?`), the offset of
    /// its header and its declared size.
    var chunks: [(type: String, offset: Int64, size: Int64)] = []
    /// The `desc` chunk as written (the reader checks it) and its header's offset.
    var desc: (value: CAFAudioDescription, offset: Int64)?
    /// The `info` chunk's key/value strings, in order.
    var info: [(String, String)] = []
}

extension CAFStreamParser {
    /// A parser that walks every chunk of a file of `fileSize` bytes, as ``CAFReader`` reads it: chunks
    /// in any order, before or after `data`, each of any size the file holds, `info` read, `data`
    /// skipped (its audio is the reader's to read), as far as the end of the file or of a `data`
    /// chunk of size -1. It reports no events; the walk is done when ``isWalkDone``, and what it found is
    /// in ``walk`` and in ``cookie``, ``pakt``, ``chan`` and ``audio``.
    ///
    /// It throws what ``CAFReader`` documents for the chunk layout: a chunk header cut short, a chunk
    /// beyond the end of the file, a negative size but -1 for `data`, a second `data`, a `data` chunk
    /// without its `mEditCount`, a `desc` shorter than 32 bytes, a malformed `info`, no `data`. The
    /// reader checks the chunks' contents after the walk.
    init(walkingFileOf fileSize: Int64) {
        self.init(batching: AudioFileStreamParser.Batching())
        walk = CAFFileWalk(fileSize: fileSize)
    }

    /// Whether a walk has reached its end.
    var isWalkDone: Bool {
        guard walk != nil, case .done = phase else { return false }
        return true
    }

    /// A chunk header in a walk, the header's 12 bytes at hand.
    mutating func walkChunk(_ input: inout ByteWindow, offset: Int64, size: Int64) throws(MediaError) -> Bool {
        guard var walk else { return false }
        let type = String(decoding: input.peek(upTo: 4).map { $0 >= 0x20 && $0 < 0x7F ? $0 : 0x3F }, as: UTF8.self)
        walk.chunks.append((type, offset, size))
        self.walk = walk
        let header = Int64(CAFFile.chunkHeaderSize)
        let remaining = walk.fileSize - offset - header
        if type == "data" { return try walkData(&input, offset: offset, size: size, remaining: remaining) }
        guard size >= 0 else {
            throw MediaError.invalidData("CAF '\(type)' chunk declares a size of \(count: size, "byte")", at: offset)
        }
        guard size <= remaining else {
            throw MediaError.truncated(
                "CAF '\(type)' chunk", needed: Int(clamping: size), available: Int(clamping: remaining), at: offset)
        }
        if ["desc", "kuki", "pakt", "chan", "info"].contains(type) {
            guard let bytes = input.peek(Int(header + size)) else {
                guard input.isFinished else { return false }
                throw MediaError.truncated(
                    "CAF '\(type)' chunk", needed: Int(size), available: input.available - Int(header), at: offset)
            }
            try store(type, Array(bytes.dropFirst(Int(header))), at: offset)
        }
        skip(&input, type: type, offset: offset, size: size, from: offset)
        return true
    }

    /// Keeps the body of a chunk the reader uses.
    private mutating func store(_ type: String, _ body: [UInt8], at offset: Int64) throws(MediaError) {
        let bodyOffset = offset + Int64(CAFFile.chunkHeaderSize)
        switch type {
        case "desc":
            guard body.count >= CAFAudioDescription.size else {
                throw MediaError.truncated(
                    "CAF 'desc' chunk", needed: CAFAudioDescription.size, available: body.count, at: offset)
            }
            walk?.desc = (try CAFAudioDescription(parsing: body, at: bodyOffset), offset)
        case "kuki": cookie = (body, bodyOffset)
        case "pakt": pakt = (body, offset)
        case "chan": chan = body
        default: walk?.info = try CAFInformationChunk.entries(body, at: offset)
        }
    }

    /// The `data` chunk in a walk: checked, recorded and skipped; a size of -1 ends the walk.
    private mutating func walkData(_ input: inout ByteWindow, offset: Int64, size: Int64, remaining: Int64)
        throws(MediaError) -> Bool
    {
        try checkDataChunk(offset: offset, size: size)
        let isOpen = size == -1
        guard remaining >= 4 else {
            throw MediaError.truncated(
                "CAF 'data' mEditCount", needed: 4, available: Int(remaining),
                at: offset + Int64(CAFFile.chunkHeaderSize))
        }
        guard isOpen || size <= remaining else {
            throw MediaError.truncated(
                "CAF 'data' chunk", needed: Int(clamping: size), available: Int(clamping: remaining), at: offset)
        }
        audio = AudioData(
            headerOffset: offset, declaredSize: size, audioStart: offset + 16,
            audioSize: (isOpen ? remaining : size) - 4)
        if isOpen {
            phase = .done
        } else {
            skip(&input, type: "data", offset: offset, size: size, from: offset)
        }
        return true
    }

    /// The input ended at a chunk boundary or inside a chunk header, in a walk: the end of the walk
    /// after `data`, else a file cut short.
    mutating func endOfWalk(_ input: inout ByteWindow) throws(MediaError) -> Bool {
        if audio != nil, input.available == 0 {
            phase = .done
            return true
        }
        throw MediaError.truncated(
            input.available == 0 ? "CAF 'data' chunk header" : "CAF chunk header", needed: CAFFile.chunkHeaderSize,
            available: input.available, at: input.position)
    }
}
