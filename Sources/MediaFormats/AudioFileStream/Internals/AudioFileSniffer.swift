import MediaCore

/// Recognises an audio file's type from its first bytes, for ``AudioFileStreamParser``.
///
/// - Magic numbers at offset 0: `RIFF`/`RF64`/`BW64` with `WAVE` at 8 (or alone, in a complete input
///   too short to hold the form type); `FORM` with `AIFF` or `AIFC` at 8; `caff`; `.snd`.
/// - An ID3v2 tag (`ID3`, then its syncsafe size, plus a footer when flagged): the frame header after
///   it decides, so the tag must have arrived (or the input ended).
/// - A container it does not read (an ISO BMFF box type at offset 4, `OggS`, `fLaC`, the EBML magic of
///   Matroska and WebM, `FLV`, ASF's GUID, a RIFF form other than WAVE, MPEG-TS's sync byte at 0, 188 and
///   376): named, so that the error says what the file is instead of reporting the frame headers its
///   payload holds by chance (an M4A's AAC was once taken for damaged MP3).
/// - A frame header at offset 0: ADTS (sync `0xFFF`, layer 0) or MPEG audio (sync `0xFFE`, layer I–III).
/// - Otherwise the first such header in the first ``scanLimit`` bytes (garbage before an MP3 stream,
///   a stream joined mid-frame), decided once that many bytes are here or the input ended; the format's
///   parser then confirms it and reports the skipped bytes. Here a header counts only when the header
///   its length points to is one of the same type (or lies past the scanned bytes), since a sync pattern
///   in garbage is common: about one random position in 20,000 looks like an ADTS header, so an MP3
///   stream joined 200 bytes before a frame was taken for ADTS about once in a hundred. A file type hint of
///   ADTS or MP3 (`AudioFileStreamOpen`'s, for types that "cannot be uniquely determined from the data")
///   makes the scan look for that type's headers only.
enum AudioFileSniffer {
    /// How far a stream that starts with neither a magic number nor a frame is searched for a frame.
    static let scanLimit = 65_536

    enum Verdict: Equatable {
        case type(AudioFileType)
        case needMoreBytes
        case unknown
        /// A container this parser does not read, named as a user knows it ("an MPEG-4 file").
        case otherContainer(String)
    }

    /// The verdict on `bytes`, the file's first bytes so far; `isComplete` when no more will come;
    /// `hint`, the type the caller expects, if any.
    static func sniff(_ bytes: ArraySlice<UInt8>, isComplete: Bool, hint: AudioFileType? = nil) -> Verdict {
        let b = Array(bytes.prefix(12))
        func starts(_ text: String, at offset: Int = 0) -> Bool {
            let t = Array(text.utf8)
            return b.count >= offset + t.count && Array(b[offset..<(offset + t.count)]) == t
        }
        if b.count < 12 && !isComplete { return .needMoreBytes }
        // A complete input of fewer than 12 bytes that starts like a WAVE file is one cut short: its
        // parser reports it as truncated.
        if (starts("RIFF") || starts("RF64") || starts("BW64")) && (b.count < 12 || starts("WAVE", at: 8)) {
            return .type(.wave)
        }
        if starts("FORM") && starts("AIFF", at: 8) { return .type(.aiff) }
        if starts("FORM") && starts("AIFC", at: 8) { return .type(.aifc) }
        if starts("caff") { return .type(.caf) }
        if starts(".snd") { return .type(.next) }
        // Containers whose compressed payload would otherwise be searched for frame headers: AAC or
        // random bytes in an MP4's `mdat` hold confirmed-looking MPEG audio headers often enough.
        if let container = otherContainer(b, bytes, starts: starts) { return .otherContainer(container) }
        var start = bytes.startIndex
        if starts("ID3") {
            guard bytes.count >= 10 else { return isComplete ? .unknown : .needMoreBytes }
            let size = bytes[start + 6..<start + 10].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
            let footer = bytes[start + 5] & 0x10 != 0 ? 10 : 0
            start += 10 + size + footer
            guard bytes.endIndex >= start + 4 else { return isComplete ? .unknown : .needMoreBytes }
        }
        if let type = frameType(bytes, at: start) { return .type(type) }
        guard bytes.count - (start - bytes.startIndex) >= scanLimit || isComplete else { return .needMoreBytes }
        // Only the first scanLimit bytes count, however many have arrived, so that the verdict does not
        // depend on how the input was split.
        let window = bytes[start..<min(bytes.endIndex, start + scanLimit)]
        let wanted: AudioFileType? = hint == .adts || hint == .mp3 ? hint : nil
        var i = start
        while i + 4 <= window.endIndex {
            if let type = frameType(window, at: i), wanted.map({ $0 == type }) ?? true,
                isConfirmed(type, in: window, at: i)
            {
                return .type(type)
            }
            i += 1
        }
        return .unknown
    }

    /// The name of the container `bytes` start with when it is one this parser does not read (MPEG-4 and
    /// QuickTime, Ogg, FLAC, Matroska and WebM, MPEG-TS, FLV, RIFF forms other than WAVE, ASF), so that
    /// the error names it rather than the frames found by chance in its payload.
    private static func otherContainer(
        _ b: [UInt8], _ bytes: ArraySlice<UInt8>, starts: (String, Int) -> Bool
    ) -> String? {
        if ["ftyp", "moov", "mdat", "wide", "free"].contains(where: { starts($0, 4) }) {
            return "an MPEG-4 or QuickTime file"
        }
        if starts("OggS", 0) { return "an Ogg file" }
        if starts("fLaC", 0) { return "a FLAC file" }
        if b.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return "a Matroska or WebM file" }
        if starts("FLV", 0) && b.count > 3 && b[3] == 1 { return "an FLV file" }
        if b.starts(with: [0x30, 0x26, 0xB2, 0x75]) { return "an ASF (WMA/WMV) file" }
        if starts("RIFF", 0) && b.count >= 12 {
            return
                "a RIFF '\(String(decoding: b[8..<12].map { (0x20...0x7E).contains($0) ? $0 : 0x3F }, as: UTF8.self))' file"
        }
        let start = bytes.startIndex
        if bytes.count >= 3 * 188, (0..<3).allSatisfy({ bytes[start + $0 * 188] == 0x47 }) { return "an MPEG-TS file" }
        return nil
    }

    /// Whether the header of `type` at `i` is followed, where its frame length says, by another header of
    /// `type`; also when that place is past `window`'s end, or the length is unknown (the free format):
    /// the format's parser confirms those.
    private static func isConfirmed(_ type: AudioFileType, in window: ArraySlice<UInt8>, at i: Int) -> Bool {
        let length: Int
        if type == .adts {
            guard i + 6 <= window.endIndex else { return true }
            length = Int(window[i + 3] & 3) << 11 | Int(window[i + 4]) << 3 | Int(window[i + 5]) >> 5
            guard length >= 7 else { return false }  // shorter than its own header
        } else {
            guard let header = MP3FrameHeader(window[i], window[i + 1], window[i + 2], window[i + 3]) else {
                return false
            }
            length = header.frameLength
            guard length > 0 else { return true }
        }
        let next = i + length
        guard next + 4 <= window.endIndex else { return true }
        return frameType(window, at: next) == type
    }

    /// ADTS or MPEG audio when a valid frame header starts at `i`.
    private static func frameType(_ bytes: ArraySlice<UInt8>, at i: Int) -> AudioFileType? {
        guard i + 4 <= bytes.endIndex, bytes[i] == 0xFF else { return nil }
        let b1 = bytes[i + 1], b2 = bytes[i + 2]
        if b1 & 0xF6 == 0xF0 {  // ADTS: 12-bit sync, layer 00
            return (b2 >> 2) & 0x0F < 13 ? .adts : nil
        }
        let version = (b1 >> 3) & 3, layer = (b1 >> 1) & 3
        guard b1 & 0xE0 == 0xE0, version != 1, layer != 0 else { return nil }
        let bitrate = b2 >> 4, rate = (b2 >> 2) & 3
        guard bitrate != 15, rate != 3 else { return nil }
        return .mp3
    }

    /// The first bytes for an error message: `'RIFF'` when printable, else hex.
    static func describe(_ bytes: ArraySlice<UInt8>) -> String {
        if bytes.isEmpty { return "nothing (the file is empty)" }
        if bytes.prefix(4).allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return "'" + String(decoding: bytes.prefix(4), as: UTF8.self) + "'"
        }
        return bytes.prefix(8).map { "0x" + String($0, radix: 16, uppercase: true) }.joined(separator: " ")
    }
}
