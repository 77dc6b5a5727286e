/// The decisions about where MPEG audio frames start, made on the unconsumed bytes of a ``ByteWindow``
/// (indices relative to its first unconsumed byte) and, once the input has ended, on where the audio
/// ends (`end`: the first trailing tag, or the end of the file, relative; `nil` before the end).
///
/// Every answer is `needMoreBytes` until the bytes it depends on are there or the input has ended, so
/// that ``MP3StreamParser`` decides the same however its input is split.
///
/// - A *follower* is what comes right after a frame: another header, a tag (ID3v2, APE with a header,
///   ID3v1), the end of the audio, or something else. While locked on, any valid header confirms the
///   frame before it (the stream may change format there; the parser then confirms the new stream
///   with a chain).
/// - A *chain* at an offset confirms a frame start for locking on: a valid header that is not free
///   format, followed by ``confirmingHeaders`` more valid headers of the same
///   ``MP3FrameHeader/StreamClass``, each where the previous frame's length says. The chain also
///   succeeds early at a tag or at the exact end of the audio; and when the audio ends inside a frame or
///   less than a header after one, it succeeds if two headers agreed before that (a cut-off file of a
///   frame and a half still locks on; a lone header near the end does not).
enum MP3FrameSync {
    /// Headers that must follow a candidate frame, each where the last frame's length puts it, before the
    /// parser locks on at the start and after losing sync: 3 (four headers in a row).
    static let confirmingHeaders = 3

    /// A decision that may need more bytes.
    enum Probe<Value: Sendable>: Sendable {
        /// The bytes it depends on have not all arrived.
        case needMoreBytes
        /// No.
        case no
        /// Yes, with what was found.
        case yes(Value)
    }

    /// What follows a frame.
    enum Follower: Sendable {
        /// The bytes it depends on have not all arrived.
        case needMoreBytes
        /// The audio ends exactly here.
        case end
        /// The audio ended before here: the frame is cut off.
        case cut
        /// Fewer than 4 bytes of audio are left: no header fits.
        case stray
        /// A tag starts here.
        case tag
        /// A valid header (of any stream) starts here.
        case header(MP3FrameHeader)
        /// Anything else.
        case garbage
    }

    /// The valid header at `index`, deciding as early as the first bytes allow.
    static func header(_ input: ByteWindow, at index: Int, end: Int?) -> Probe<MP3FrameHeader> {
        if let end, end - index < 4 { return .no }
        let available = input.available - index
        guard available > 0 else { return input.isFinished ? .no : .needMoreBytes }
        guard input[index] == 0xFF else { return .no }
        guard available > 1 else { return input.isFinished ? .no : .needMoreBytes }
        guard input[index + 1] & 0xE0 == 0xE0 else { return .no }
        guard available > 3 else { return input.isFinished ? .no : .needMoreBytes }
        guard let header = MP3FrameHeader(input[index], input[index + 1], input[index + 2], input[index + 3]) else {
            return .no
        }
        return .yes(header)
    }

    /// What starts at `index`, right after a frame.
    static func follower(_ input: ByteWindow, at index: Int, end: Int?) -> Follower {
        if let end {
            if index == end { return .end }
            if index > end { return .cut }
            if end - index < 4 { return .stray }
        }
        switch MP3Tag.probe(input, at: index, id3v1: true) {
        case .needMoreBytes: return .needMoreBytes
        case .tag: return .tag
        case .none: break
        }
        switch header(input, at: index, end: end) {
        case .needMoreBytes: return .needMoreBytes
        case .no: return .garbage
        case .yes(let header): return .header(header)
        }
    }

    /// Whether `candidate` continues the stream of `first`: same class, and not free format.
    static func continues(_ candidate: MP3FrameHeader, _ first: MP3FrameHeader) -> Bool {
        !candidate.isFreeFormat && candidate.streamClass == first.streamClass
    }

    /// The header at `index` when a chain confirms it (see the type's description).
    static func chain(_ input: ByteWindow, at index: Int, end: Int?) -> Probe<MP3FrameHeader> {
        let first: MP3FrameHeader
        switch header(input, at: index, end: end) {
        case .needMoreBytes: return .needMoreBytes
        case .no: return .no
        case .yes(let header):
            guard !header.isFreeFormat else { return .no }
            first = header
        }
        var position = index
        var current = first
        var agreeing = 1
        while agreeing <= confirmingHeaders {
            position += current.frameLength
            switch follower(input, at: position, end: end) {
            case .needMoreBytes: return .needMoreBytes
            case .end, .tag: return .yes(first)
            case .cut, .stray: return agreeing >= 2 ? .yes(first) : .no
            case .garbage: return .no
            case .header(let next):
                guard continues(next, first) else { return .no }
                current = next
                agreeing += 1
            }
        }
        return .yes(first)
    }
}
