import MediaCore

/// The format parser an ``AudioFileStreamParser`` uses, as an enum of the concrete parsers so that each
/// is stored inline and mutated in place (an existential would box a copy on every call).
enum FormatParser: Sendable {
    case none
    case wave(WAVEStreamParser)
    case aiff(AIFFStreamParser)
    case caf(CAFStreamParser)
    case next(NeXTStreamParser)
    case adts(ADTSStreamParser)
    case mp3(MP3StreamParser)

    init(_ type: AudioFileType, batching: AudioFileStreamParser.Batching) {
        switch type {
        case .wave: self = .wave(WAVEStreamParser(batching: batching))
        case .aiff, .aifc: self = .aiff(AIFFStreamParser(batching: batching))
        case .caf: self = .caf(CAFStreamParser(batching: batching))
        case .next: self = .next(NeXTStreamParser(batching: batching))
        case .adts: self = .adts(ADTSStreamParser(batching: batching))
        case .mp3: self = .mp3(MP3StreamParser(batching: batching))
        }
    }

    mutating func parse(_ input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) throws(MediaError) {
        // `self = .none` first, so that the payload is uniquely referenced while it parses.
        switch self {
        case .none: return
        case .wave(var p): self = .none; defer { self = .wave(p) }; try p.parse(&input, into: &events)
        case .aiff(var p): self = .none; defer { self = .aiff(p) }; try p.parse(&input, into: &events)
        case .caf(var p): self = .none; defer { self = .caf(p) }; try p.parse(&input, into: &events)
        case .next(var p): self = .none; defer { self = .next(p) }; try p.parse(&input, into: &events)
        case .adts(var p): self = .none; defer { self = .adts(p) }; try p.parse(&input, into: &events)
        case .mp3(var p): self = .none; defer { self = .mp3(p) }; try p.parse(&input, into: &events)
        }
    }

    func seekOffset(forPacket packet: Int64) -> AudioFileStreamSeekOffset? {
        switch self {
        case .none: return nil
        case .wave(let p): return p.seekOffset(forPacket: packet)
        case .aiff(let p): return p.seekOffset(forPacket: packet)
        case .caf(let p): return p.seekOffset(forPacket: packet)
        case .next(let p): return p.seekOffset(forPacket: packet)
        case .adts(let p): return p.seekOffset(forPacket: packet)
        case .mp3(let p): return p.seekOffset(forPacket: packet)
        }
    }

    mutating func resume(atPacket packet: Int64, byteOffset: Int64) {
        switch self {
        case .none: return
        case .wave(var p): self = .none; p.resume(atPacket: packet, byteOffset: byteOffset); self = .wave(p)
        case .aiff(var p): self = .none; p.resume(atPacket: packet, byteOffset: byteOffset); self = .aiff(p)
        case .caf(var p): self = .none; p.resume(atPacket: packet, byteOffset: byteOffset); self = .caf(p)
        case .next(var p): self = .none; p.resume(atPacket: packet, byteOffset: byteOffset); self = .next(p)
        case .adts(var p): self = .none; p.resume(atPacket: packet, byteOffset: byteOffset); self = .adts(p)
        case .mp3(var p): self = .none; p.resume(atPacket: packet, byteOffset: byteOffset); self = .mp3(p)
        }
    }

    var heldAudioRange: Range<Int64>? {
        switch self {
        case .aiff(let p): return p.heldAudioRange
        case .caf(let p): return p.heldAudioRange
        case .none, .wave, .next, .adts, .mp3: return nil
        }
    }

    mutating func deferHeldAudio(_ input: inout ByteWindow) -> Int64? {
        switch self {
        case .aiff(var p): self = .none; defer { self = .aiff(p) }; return p.deferHeldAudio(&input)
        case .caf(var p): self = .none; defer { self = .caf(p) }; return p.deferHeldAudio(&input)
        case .none, .wave, .next, .adts, .mp3: return nil
        }
    }
}
