#if canImport(Glibc)
    import Glibc
#endif
import MediaCore

/// What libavformat 5.1's MP4/MOV muxer cannot do at the end of a file, done on its output in Swift:
/// add an iTunes freeform tag (`moov/udta/meta/ilst/----`, the `iTunSMPB` gapless info) and put the
/// `moov` before the `mdat` (shifting every `stco`/`co64` chunk offset by how far its data moved).
enum MovieRewriter {
    /// The `iTunSMPB` value as iTunes writes it: a space, then twelve hex fields: 0, priming,
    /// remainder (padding), the valid frames as 16 digits, and eight zero fields.
    static func iTunSMPB(priming: Int64, remainder: Int64, validFrames: Int64) -> String {
        func hex(_ value: Int64, _ digits: Int) -> String {
            let text = String(UInt64(bitPattern: value), radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        let fields =
            ["00000000", hex(priming, 8), hex(remainder, 8), hex(validFrames, 16)]
            + Array(repeating: "00000000", count: 8)
        return " " + fields.joined(separator: " ")
    }

    /// The size of the file at `path`, or `nil` when it cannot be read.
    static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    // MARK: - Boxes

    /// A box inside a buffer: its type and the byte ranges of the whole box and of its payload.
    struct Box {
        let type: String
        let start: Int
        let payloadStart: Int
        let end: Int
    }

    /// The boxes between `start` and `end` of `bytes`; throws ``/MediaCore/MediaError/Code/invalidData``
    /// for a size that is too small or runs past `end`.
    static func boxes(in bytes: [UInt8], from start: Int, to end: Int) throws(MediaError) -> [Box] {
        var result: [Box] = []
        var offset = start
        while offset < end {
            guard end - offset >= 8 else {
                throw MediaError.truncated("MP4 box header", needed: 8, available: end - offset, at: Int64(offset))
            }
            var size = Int(readUInt32(bytes, offset))
            var header = 8
            if size == 1 {
                guard end - offset >= 16 else {
                    throw MediaError.truncated(
                        "MP4 box largesize", needed: 16, available: end - offset, at: Int64(offset))
                }
                size = Int(clamping: readUInt64(bytes, offset + 8))
                header = 16
            } else if size == 0 {
                size = end - offset
            }
            guard size >= header, size <= end - offset else {
                throw MediaError.invalidData(
                    "MP4 box '\(fourCC(bytes, offset + 4))' of \(count: size, "byte") does not fit in the \(count: end - offset, "byte") left",
                    at: Int64(offset))
            }
            result.append(
                Box(type: fourCC(bytes, offset + 4), start: offset, payloadStart: offset + header, end: offset + size))
            offset += size
        }
        return result
    }

    static func readUInt32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func readUInt64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        bytes[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func fourCC(_ bytes: [UInt8], _ at: Int) -> String {
        String(decoding: bytes[at..<at + 4].map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }

    private static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<T.bitWidth / 8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// A box of `type` around `payload` (32-bit size).
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        bigEndian(UInt32(clamping: payload.count + 8)) + Array(type.utf8.prefix(4)) + payload
    }

    /// The `----` atom: `mean` com.apple.iTunes, `name`, and a UTF-8 `data` value.
    static func freeformAtom(name: String, value: String) -> [UInt8] {
        box(
            "----",
            box("mean", [0, 0, 0, 0] + Array("com.apple.iTunes".utf8))
                + box("name", [0, 0, 0, 0] + Array(name.utf8))
                + box("data", [0, 0, 0, 1, 0, 0, 0, 0] + Array(value.utf8)))  // type 1 = UTF-8, locale 0
    }

    /// A `meta` box (full box) with an iTunes `hdlr` (`mdir`/`appl`) and an `ilst` holding `items`.
    static func metaBox(items: [UInt8]) -> [UInt8] {
        let hdlr = box("hdlr", [0, 0, 0, 0] + [0, 0, 0, 0] + Array("mdirappl".utf8) + [UInt8](repeating: 0, count: 9))
        return box("meta", [0, 0, 0, 0] + hdlr + box("ilst", items))
    }

    // MARK: - Editing the moov

    /// `moov` (the whole box) with the tag added to its udta/meta/ilst (creating what is missing) and
    /// every chunk offset `o` replaced by `shift(o)`; throws when a shifted offset does not fit `stco`.
    static func editedMovie(_ moov: [UInt8], tag: (name: String, value: String)?, shift: (Int64) -> Int64)
        throws(MediaError) -> [UInt8]
    {
        let top = try boxes(in: moov, from: 0, to: moov.count)
        guard let movie = top.first, movie.type == "moov" else {
            throw MediaError.invalidData("expected a moov box, found '\(top.first?.type ?? "nothing")'")
        }
        var payload: [UInt8] = []
        var tagged = false
        for child in try boxes(in: moov, from: movie.payloadStart, to: movie.end) {
            switch child.type {
            case "trak":
                payload += try shifted(moov, child, shift: shift)
            case "udta":
                if let tag {
                    payload += try udta(moov, child, item: freeformAtom(name: tag.name, value: tag.value))
                    tagged = true
                } else {
                    payload += moov[child.start..<child.end]
                }
            default:
                payload += moov[child.start..<child.end]
            }
        }
        if let tag, !tagged {
            payload += box("udta", metaBox(items: freeformAtom(name: tag.name, value: tag.value)))
        }
        return box("moov", payload)
    }

    /// A container box (trak, mdia, minf, stbl) with its stco/co64 entries shifted.
    private static func shifted(_ bytes: [UInt8], _ container: Box, shift: (Int64) -> Int64) throws(MediaError)
        -> [UInt8]
    {
        var payload: [UInt8] = []
        for child in try boxes(in: bytes, from: container.payloadStart, to: container.end) {
            switch child.type {
            case "mdia", "minf", "stbl":
                payload += try shifted(bytes, child, shift: shift)
            case "stco", "co64":
                let wide = child.type == "co64"
                let entrySize = wide ? 8 : 4
                guard child.end - child.payloadStart >= 8 else {
                    throw MediaError.truncated(
                        "\(child.type) header", needed: 8, available: child.end - child.payloadStart,
                        at: Int64(child.start))
                }
                let count = Int(readUInt32(bytes, child.payloadStart + 4))
                guard count <= (child.end - child.payloadStart - 8) / entrySize else {
                    throw MediaError.invalidData(
                        "\(child.type) declares \(count: count, "entry", plural: "entries") in \(count: child.end - child.payloadStart, "byte")",
                        at: Int64(child.start))
                }
                var body = Array(bytes[child.payloadStart..<child.payloadStart + 8])  // version, flags, entry_count
                for entry in 0..<count {
                    let at = child.payloadStart + 8 + entry * entrySize
                    let old = wide ? Int64(bitPattern: readUInt64(bytes, at)) : Int64(readUInt32(bytes, at))
                    let new = shift(old)
                    if wide {
                        body += bigEndian(UInt64(bitPattern: new))  // chunk_offset (64-bit)
                    } else {
                        guard let narrow = UInt32(exactly: new) else {
                            throw MediaError(
                                .unsupportedFormat,
                                "moving the moov would push a chunk offset to \(new), beyond stco's 32 bits")
                        }
                        body += bigEndian(narrow)  // chunk_offset
                    }
                }
                body += bytes[(child.payloadStart + 8 + count * entrySize)..<child.end]
                payload += box(child.type, body)
            default:
                payload += bytes[child.start..<child.end]
            }
        }
        return box(container.type, payload)
    }

    /// `udta` with `item` appended to its meta/ilst (creating the meta or ilst when missing).
    private static func udta(_ bytes: [UInt8], _ udta: Box, item: [UInt8]) throws(MediaError) -> [UInt8] {
        var payload: [UInt8] = []
        var done = false
        for child in try boxes(in: bytes, from: udta.payloadStart, to: udta.end) {
            guard child.type == "meta", !done, child.end - child.payloadStart >= 4 else {
                payload += bytes[child.start..<child.end]
                continue
            }
            var meta = Array(bytes[child.payloadStart..<child.payloadStart + 4])  // version, flags
            var hasList = false
            for inner in try boxes(in: bytes, from: child.payloadStart + 4, to: child.end) {
                if inner.type == "ilst", !hasList {
                    meta += box("ilst", Array(bytes[inner.payloadStart..<inner.end]) + item)
                    hasList = true
                } else {
                    meta += bytes[inner.start..<inner.end]
                }
            }
            if !hasList { meta += box("ilst", item) }
            payload += box("meta", meta)
            done = true
        }
        if !done { payload += metaBox(items: item) }
        return box("udta", payload)
    }

    // MARK: - Applying

    /// Adds `tag` to the `moov` that is the last box of `output`, at `offset`, whose bytes are `movie`:
    /// the grown box replaces the old one and runs on past the old end.
    static func addTag(_ tag: String, toMovieAtEndOf output: any MediaOutput, movie: [UInt8], at offset: Int64)
        throws(MediaError)
    {
        guard offset + Int64(movie.count) == output.position else {
            throw MediaError(
                .invalidData,
                "the trailer wrote \(count: movie.count, "byte") at \(offset) but the output ends at \(output.position)"
            )
        }
        let edited = try editedMovie(movie, tag: ("iTunSMPB", tag), shift: { $0 })
        guard edited.count >= movie.count else {
            throw MediaError(.invalidData, "the edited moov is shorter than the original")
        }
        try output.overwrite(Array(edited.prefix(movie.count)), at: offset)
        try output.write(Array(edited.dropFirst(movie.count)))
    }
}
