/// A metadata tag in an MP3 file, found where a frame should start: its kind and its whole length.
///
/// Recognised, each by its own signature and size field:
/// - ID3v2 (id3.org ID3v2.4.0-structure §3.1): `ID3`, two version bytes other than `0xFF`, flags, and
///   a 28-bit syncsafe size of what follows the 10-byte header; plus a 10-byte footer when flag 0x10
///   is set. Unsynchronisation does not change that size, so the tag is skipped by it.
/// - APEv2 with a header (APEv2 specification, "APE Tag Header / Footer"): `APETAGEX`, the version,
///   the size of the items and the footer, the item count, flags with bit 29 set ("this is the
///   header"); the tag is 32 bytes of header plus that size.
/// - ID3v1: `TAG` and 128 bytes in all.
///
/// APE tags without a header and the ID3v1 tag at the end of a file are found from the end instead
/// (``MP3Trailer``). A size field is only ever used to skip, never to allocate.
struct MP3Tag: Sendable, Hashable {
    /// What a probe at an offset found.
    enum Probe: Sendable, Hashable {
        /// More bytes are needed to tell.
        case needMoreBytes
        /// No tag starts there.
        case none
        /// A tag starts there.
        case tag(MP3Tag)
    }

    /// `ID3v2`, `APEv2` (or `APEv1`) or `ID3v1`, as ``AudioFileStreamDiagnostic/tagSkipped(kind:byteOffset:length:)``
    /// names it.
    let kind: String
    /// The tag's length in bytes, header and footer included.
    let length: Int64

    /// The length of an ID3v1 tag.
    static let id3v1Length: Int64 = 128
    /// The length of an APE tag's header or footer.
    static let apeHeaderLength = 32
    /// `ID3`.
    static let id3v2Signature: [UInt8] = [0x49, 0x44, 0x33]
    /// `APETAGEX`.
    static let apeSignature: [UInt8] = [0x41, 0x50, 0x45, 0x54, 0x41, 0x47, 0x45, 0x58]
    /// `TAG`.
    static let id3v1Signature: [UInt8] = [0x54, 0x41, 0x47]

    /// The tag starting `index` bytes into `input`, if one does. At the end of the input, a tag cut short
    /// before its size field is no tag. `id3v1`: whether `TAG` counts, which it does only where a frame
    /// should start (three letters are weak evidence inside damaged data; the ID3v1 tag at the end of a
    /// file is found by ``MP3Trailer``).
    static func probe(_ input: ByteWindow, at index: Int, id3v1: Bool) -> Probe {
        let available = input.available - index
        guard available > 0 else { return input.isFinished ? .none : .needMoreBytes }
        switch input[index] {
        case 0x49: return probeID3v2(input, at: index)  // "I"
        case 0x41: return probeAPEHeader(input, at: index)  // "A"
        case 0x54: return id3v1 ? probeID3v1(input, at: index) : .none  // "T"
        default: return .none
        }
    }

    /// Whether the bytes at `index` match `signature`, as far as they are available: `nil` when they
    /// match so far but are too few to tell.
    private static func matches(_ input: ByteWindow, at index: Int, _ signature: [UInt8]) -> Bool? {
        let available = input.available - index
        for (i, byte) in signature.enumerated() {
            guard i < available else { return input.isFinished ? false : nil }
            if input[index + i] != byte { return false }
        }
        return true
    }

    private static func probeID3v2(_ input: ByteWindow, at index: Int) -> Probe {
        guard let match = matches(input, at: index, id3v2Signature) else { return .needMoreBytes }
        guard match else { return .none }
        guard input.available - index >= 10 else { return input.isFinished ? .none : .needMoreBytes }
        guard input[index + 3] != 0xFF, input[index + 4] != 0xFF else { return .none }
        var size: Int64 = 0
        for i in 6..<10 {
            let byte = input[index + i]
            guard byte & 0x80 == 0 else { return .none }
            size = size << 7 | Int64(byte)
        }
        let footer: Int64 = input[index + 5] & 0x10 != 0 ? 10 : 0
        return .tag(MP3Tag(kind: "ID3v2", length: 10 + size + footer))
    }

    private static func probeAPEHeader(_ input: ByteWindow, at index: Int) -> Probe {
        guard let match = matches(input, at: index, apeSignature) else { return .needMoreBytes }
        guard match else { return .none }
        guard input.available - index >= apeHeaderLength else { return input.isFinished ? .none : .needMoreBytes }
        guard let fields = APEFields(input, at: index), fields.isHeader else { return .none }
        return .tag(MP3Tag(kind: fields.kind, length: Int64(apeHeaderLength) + fields.size))
    }

    private static func probeID3v1(_ input: ByteWindow, at index: Int) -> Probe {
        guard let match = matches(input, at: index, id3v1Signature) else { return .needMoreBytes }
        guard match else { return .none }
        guard Int64(input.available - index) >= id3v1Length else { return input.isFinished ? .none : .needMoreBytes }
        return .tag(MP3Tag(kind: "ID3v1", length: id3v1Length))
    }

    /// The fields of a 32-byte APE header or footer: `APETAGEX`, version (1000 or 2000), size of the items
    /// and footer, item count, flags, 8 reserved bytes; all little-endian.
    struct APEFields {
        /// The items' and footer's size (the header excluded).
        let size: Int64
        /// Whether this block is the header (flag bit 29) rather than the footer.
        let isHeader: Bool
        /// Whether the tag has a header (flag bit 31).
        let hasHeader: Bool
        /// `APEv1` for version 1000, else `APEv2`.
        let kind: String

        /// The block at `index`, whose 32 bytes the caller has checked are available and start with
        /// `APETAGEX`; `nil` for an unknown version or a size smaller than the footer.
        init?(_ input: ByteWindow, at index: Int) {
            let version = input.littleEndian(UInt32.self, at: index + 8)
            guard version == 1000 || version == 2000 else { return nil }
            size = Int64(input.littleEndian(UInt32.self, at: index + 12))
            let flags = input.littleEndian(UInt32.self, at: index + 20)
            isHeader = flags & (1 << 29) != 0
            hasHeader = flags & (1 << 31) != 0
            kind = version == 1000 ? "APEv1" : "APEv2"
            guard size >= Int64(MP3Tag.apeHeaderLength) || (isHeader && flags & (1 << 30) != 0) else { return nil }
        }
    }
}
