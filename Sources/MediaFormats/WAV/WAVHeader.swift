import MediaCore

/// What the chunks of a WAV file before its audio say: the `fmt ` chunk, where the audio starts and how
/// long the `data` chunk claims to be.
///
/// ``read(from:)`` walks the RIFF chunks in any order up to `data`, skipping those it does not need
/// (`LIST`, `fact`, `PEAK`, `JUNK`, `bext`, unknown ones) with their pad byte, and checks each chunk's size
/// against the file before skipping it, so that a hostile size fails fast instead of reading to the end.
struct WAVHeader {
    /// How long the `data` chunk says it is.
    enum DataSize {
        /// A size in bytes (from the chunk, or from `ds64` in RF64).
        case declared(Int64)
        /// Unknown: read to the end of the input.
        case open
    }

    /// The parsed `fmt ` chunk.
    var formatChunk: WAVFormatChunk
    /// The type of one sample value.
    var sampleType: PCMSampleType
    /// The channel layout.
    var channelLayout: ChannelLayout
    /// Where the `data` chunk's header starts.
    var dataChunkOffset: Int64
    /// Where the audio starts: just after the `data` chunk header.
    var dataOffset: Int64
    /// What the `data` chunk (or `ds64`) declares.
    var dataSize: DataSize
    /// What was worked around on the way.
    var diagnostics: [WAVReader.Diagnostic]

    /// The largest prefix of a `fmt ` or `ds64` chunk read into memory; the rest is skipped.
    private static let maximumFieldBytes: Int64 = 64

    /// Reads the RIFF header and the chunks up to and including the `data` chunk header, leaving `input`
    /// at the first audio byte.
    static func read(from input: ForwardInput) throws(MediaError) -> WAVHeader {
        let (isRF64, riffSize) = try readRIFFHeader(from: input)
        var format: (chunk: WAVFormatChunk, offset: Int64)?
        var ds64DataSize: Int64?
        var diagnostics: [WAVReader.Diagnostic] = []
        var isFirstChunk = true

        // Each pass consumes at least the 8-byte chunk header, so the loop ends at the end of the input.
        while true {
            let chunkOffset = input.position
            let header = try input.read(upTo: 8)
            if header.isEmpty {
                // A file cut at a chunk boundary looks complete; the RIFF size tells it apart.
                if riffSize != 0xFFFF_FFFF && 8 + riffSize > chunkOffset {
                    throw MediaError(
                        .truncated,
                        "WAV file ends after \(count: chunkOffset, "byte"), before any 'data' chunk, though its RIFF header declares \(8 + riffSize)",
                        byteOffset: chunkOffset)
                }
                throw MediaError.invalidData(
                    "WAV file ends after its last chunk without a 'data' chunk", at: chunkOffset)
            }
            guard header.count == 8 else {
                throw MediaError.truncated("WAV chunk header", needed: 8, available: header.count, at: chunkOffset)
            }
            var fields = ByteReader(header, baseOffset: chunkOffset)
            let id = Array(try fields.readBytes(4, "ckID"))
            let size = Int64(try fields.readUInt32LE("ckSize"))

            if id == FourCC.data {
                guard let format else {
                    throw MediaError.invalidData("WAV 'data' chunk comes before any 'fmt ' chunk", at: chunkOffset)
                }
                let dataSize = dataSize(
                    declared: size, ds64: isRF64 ? ds64DataSize : nil, input: input,
                    chunkOffset: chunkOffset, diagnostics: &diagnostics)
                let sampleType = try format.chunk.pcmSampleType(chunkOffset: format.offset)
                let (layout, maskIgnored) = format.chunk.channelLayout()
                if maskIgnored {
                    let mask = format.chunk.channelMask
                    diagnostics.append(
                        .init(
                            .channelMaskIgnored,
                            "WAV channel mask 0x\(FourCC.hex(mask, digits: 8)) names \(mask.nonzeroBitCount) speakers but the file has \(count: format.chunk.channelCount, "channel"); using the default layout",
                            byteOffset: format.offset + 28))
                }
                if format.chunk.isExtensible && format.chunk.validBitsPerSample > format.chunk.bitsPerSample {
                    diagnostics.append(
                        .init(
                            .validBitsExceedContainer,
                            "WAV wValidBitsPerSample \(format.chunk.validBitsPerSample) exceeds the \(format.chunk.bitsPerSample)-bit container; samples are delivered as stored",
                            byteOffset: format.offset + 26))
                }
                return WAVHeader(
                    formatChunk: format.chunk, sampleType: sampleType, channelLayout: layout,
                    dataChunkOffset: chunkOffset, dataOffset: chunkOffset + 8, dataSize: dataSize,
                    diagnostics: diagnostics)
            }

            // Any other chunk must fit in the file, or the file is cut short (or the size is garbage).
            let name = "WAV " + FourCC.describe(id) + " chunk"
            if let remaining = input.remaining, size > remaining {
                throw MediaError.truncated(name, needed: Int(size), available: Int(remaining), at: chunkOffset)
            }
            var consumed: Int64 = 0
            if id == FourCC.fmt {
                let body = try input.read(upTo: Int(min(size, maximumFieldBytes)))
                consumed = Int64(body.count)
                if body.count < Int(min(size, maximumFieldBytes)) {
                    throw MediaError.truncated(name, needed: Int(size), available: body.count, at: chunkOffset)
                }
                let chunk = try WAVFormatChunk(parsing: body, declaredSize: size, chunkOffset: chunkOffset)
                if format == nil {
                    format = (chunk, chunkOffset)
                } else {
                    diagnostics.append(
                        .init(
                            .duplicateFormatChunk,
                            "WAV file has a second 'fmt ' chunk before 'data'; the first one is used",
                            byteOffset: chunkOffset))
                }
            } else if id == FourCC.ds64 && isRF64 && isFirstChunk {
                // ds64: riffSize, dataSize, sampleCount (64-bit each), then a table this reader does not need.
                guard size >= 24 else {
                    throw MediaError.invalidData(
                        "RF64 'ds64' chunk of \(count: size, "byte") is shorter than its 24 bytes of sizes",
                        at: chunkOffset)
                }
                let body = try input.read(upTo: 24)
                consumed = Int64(body.count)
                var reader = ByteReader(body, baseOffset: chunkOffset + 8)
                _ = try reader.readUInt64LE("ds64 riffSize")
                let dataSize = try reader.readUInt64LE("ds64 dataSize")
                ds64DataSize = Int64(clamping: dataSize)
            }
            let rest = size - consumed
            let skipped = try input.skip(rest)
            guard skipped == rest else {
                throw MediaError.truncated(name, needed: Int(size), available: Int(consumed + skipped), at: chunkOffset)
            }
            // RIFF pads a chunk of odd size to an even length; the pad byte may be missing at the very end.
            if size & 1 == 1 { _ = try input.skip(1) }
            isFirstChunk = false
        }
    }

    /// Reads and checks the 12-byte RIFF header (`RIFF`/`RF64`/`BW64`, size, `WAVE`). Returns whether the
    /// file is RF64 (or BW64), whose sizes may be in a `ds64` chunk, and the RIFF chunk's size field.
    private static func readRIFFHeader(from input: ForwardInput) throws(MediaError) -> (isRF64: Bool, riffSize: Int64) {
        let header = try input.read(upTo: 12)
        let magic = Array(header.prefix(4))
        let accepted = [FourCC.riff, FourCC.rf64, FourCC.bw64]
        guard accepted.contains(magic) else {
            // A file shorter than four bytes that starts like "RIFF" is cut short, not something else.
            if magic.count < 4 && accepted.contains(where: { $0.starts(with: magic) }) {
                throw MediaError.truncated("WAV RIFF header", needed: 12, available: header.count, at: 0)
            }
            throw MediaError.invalidData(
                "expected 'RIFF' at the start of a WAV file but found \(FourCC.describe(magic))", at: 0)
        }
        guard header.count == 12 else {
            throw MediaError.truncated("WAV RIFF header", needed: 12, available: header.count, at: 0)
        }
        let form = header[8..<12]
        guard Array(form) == FourCC.wave else {
            throw MediaError.invalidData(
                "expected form type 'WAVE' after \(FourCC.describe(magic)) but found \(FourCC.describe(form))", at: 8)
        }
        var fields = ByteReader(header, baseOffset: 0)
        try fields.skip(4, "ckID")
        let size = try fields.readUInt32LE("ckSize")
        return (magic != FourCC.riff, Int64(size))
    }

    /// Interprets the `data` chunk's size field, noting an open size.
    private static func dataSize(
        declared: Int64,
        ds64: Int64?,
        input: ForwardInput,
        chunkOffset: Int64,
        diagnostics: inout [WAVReader.Diagnostic]
    ) -> DataSize {
        if declared == 0xFFFF_FFFF {
            if let ds64 { return .declared(ds64) }
            diagnostics.append(
                .init(
                    .openDataSize,
                    "WAV 'data' chunk size is 0xFFFFFFFF (unknown, as streaming writers leave it); reading to the end of the file",
                    byteOffset: chunkOffset))
            return .open
        }
        if declared == 0 {
            // FFmpeg reads a zero-sized data chunk to the end of the file (streaming writers leave 0 too).
            switch input.remaining {
            case .some(0):
                return .declared(0)
            case .some(let remaining):
                diagnostics.append(
                    .init(
                        .openDataSize,
                        "WAV 'data' chunk declares 0 bytes but \(remaining) follow; reading them to the end of the file, as FFmpeg does",
                        byteOffset: chunkOffset))
            case .none:
                diagnostics.append(
                    .init(
                        .openDataSize,
                        "WAV 'data' chunk declares 0 bytes; reading to the end of the stream, as FFmpeg does",
                        byteOffset: chunkOffset))
            }
            return .open
        }
        return .declared(declared)
    }
}
