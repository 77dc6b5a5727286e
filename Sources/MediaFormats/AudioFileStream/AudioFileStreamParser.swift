public import MediaCore

/// One push parser for every audio file an iOS app reads through `AudioFileStream`: WAVE (and RF64/BW64),
/// AIFF, AIFC, CAF, NeXT/Sun `.au`, ADTS and MP3. Give it the file's bytes as they arrive, in pieces of
/// any size; take out properties as it learns them, then packets with their descriptions.
///
/// ```swift
/// var parser = AudioFileStreamParser()
/// for chunk in chunks {                       // from the network, from disk
///     parser.push(chunk)
///     while let event = try parser.next() { handle(event) }
/// }
/// parser.finish()
/// while let event = try parser.next() { handle(event) }
///
/// func handle(_ event: AudioFileStreamEvent) {
///     switch event {
///     case .dataFormat(let asbd): print(asbd)                 // lpcm 44100 Hz 2 ch 16 bit signed
///     case .packets(let batch): print(batch.packetCount)
///     case .diagnostic(let note): print("warning:", note)
///     default: break
///     }
/// }
/// ```
///
/// The file type is recognised from the first bytes (`RIFF`/`RF64`/`BW64` … `WAVE`, `FORM` … `AIFF`/`AIFC`,
/// `caff`, `.snd`, an ID3v2 tag or an MPEG audio or ADTS frame header), or given as a hint; the
/// first event is always ``AudioFileStreamEvent/fileType(_:)``. The events then follow
/// ``AudioFileStreamEvent``'s order, and they and the errors are the same however the input is split
/// (``/MediaBitstream/PushParser``'s contract; each format is tested with the drip-feed verifier).
///
/// ``seekOffset(forPacket:)`` is `AudioFileStreamSeek`: the byte offset of a packet, exact for
/// constant-size packets and packet tables, estimated for MP3 (from the Xing table of contents).
/// ``seek(toPacket:)`` then moves the parser there: push the bytes from that offset on.
///
/// - Throws from ``next()``: ``/MediaCore/MediaError/Code/unsupportedFormat`` for a file that is none of the seven
///   (naming its first bytes) or a variant a format's parser cannot read; the format parsers'
///   ``/MediaCore/MediaError/Code/truncated`` and ``/MediaCore/MediaError/Code/invalidData`` with byte offsets. An error ends
///   the parse: ``next()`` returns `nil` afterwards.
public struct AudioFileStreamParser: PushParser, Sendable {
    /// How many packets one ``AudioFilePackets`` batch holds at most.
    public struct Batching: Sendable, Hashable {
        /// The most bytes of packets in one batch (a packet larger than this is a batch of its own).
        public var maxBytes: Int
        /// The most packets in one batch (for linear PCM, a packet is a frame).
        public var maxPackets: Int
        /// The most audio held while waiting for a chunk that the container puts after its audio (an
        /// AIFF `COMM` after `SSND`; a CAF `pakt` after `data`, as ffmpeg writes ALAC); beyond it the
        /// parse fails with a typed error naming the offsets. 64 MiB by default; a reader of a whole
        /// file (``AudioFileReader``) may allow the file's size.
        public var maxHeldBytes: Int64

        /// Limits: by default 64 KiB and 4096 packets a batch, and 64 MiB of held audio.
        public init(maxBytes: Int = 65_536, maxPackets: Int = 4096, maxHeldBytes: Int64 = 64 << 20) {
            self.maxBytes = max(1, maxBytes)
            self.maxPackets = max(1, maxPackets)
            self.maxHeldBytes = max(0, maxHeldBytes)
        }
    }

    private var input = ByteWindow()
    private var inputEnd = PushInputEnd()
    private var events: [AudioFileStreamEvent] = []
    private var head = 0
    private var format = FormatParser.none
    private var failed = false
    private let hint: AudioFileType?
    private let batching: Batching

    /// The file type, once recognised.
    public private(set) var fileType: AudioFileType?

    /// A parser at the start of a file. `fileTypeHint` is used when the first bytes do not say (a
    /// headerless ADTS or MP3 stream that starts with garbage); `batching` sets the batch size.
    public init(fileTypeHint: AudioFileType? = nil, batching: Batching = Batching()) {
        hint = fileTypeHint
        self.batching = batching
    }

    /// Appends the next bytes of the file. Bytes given after ``finish()`` make ``next()`` throw.
    public mutating func push(_ bytes: some Collection<UInt8>) {
        guard inputEnd.accept(bytes.count) else { return }
        input.append(bytes)
    }

    /// Says that the file has ended.
    public mutating func finish() {
        inputEnd.finish()
        input.finish()
    }

    /// The next event, or `nil` when the parser needs more bytes (or, after ``finish()``, has said
    /// everything).
    public mutating func next() throws(MediaError) -> AudioFileStreamEvent? {
        try inputEnd.check("AudioFileStreamParser")
        if head < events.count { return dequeue() }
        guard !failed else { return nil }
        events.removeAll(keepingCapacity: true)
        head = 0
        do throws(MediaError) {
            if case .none = format {
                guard let type = try sniff() else { return nil }
                fileType = type
                format = FormatParser(type, batching: batching)
                events.append(.fileType(type))
            } else {
                try format.parse(&input, into: &events)
            }
        } catch {
            failed = true
            throw error
        }
        return head < events.count ? dequeue() : nil
    }

    /// `AudioFileStreamSeek`: the byte offset where `packet` starts, and whether it is an estimate; `nil`
    /// before the parser knows the data's layout (``AudioFileStreamEvent/readyToProducePackets``) or
    /// when the format cannot say.
    public func seekOffset(forPacket packet: Int64) -> AudioFileStreamSeekOffset? {
        guard packet >= 0 else { return nil }
        return format.seekOffset(forPacket: packet)
    }

    /// Moves the parser to `packet`: drops what it holds and expects the bytes from the returned offset
    /// on (also after ``finish()``: the input is open again until the next ``finish()``). The next batch
    /// starts at `packet` with ``AudioFilePackets/isDiscontinuity``.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` when ``seekOffset(forPacket:)`` has no answer.
    public mutating func seek(toPacket packet: Int64) throws(MediaError) -> AudioFileStreamSeekOffset {
        guard let target = seekOffset(forPacket: packet) else {
            throw MediaError(
                .invalidArgument,
                "AudioFileStreamParser cannot seek to packet \(packet) (\(fileType.map { "\($0)" } ?? "file type unknown"))"
            )
        }
        events.removeAll(keepingCapacity: true)
        head = 0
        failed = false
        inputEnd = PushInputEnd()
        input.reset(at: target.byteOffset)
        format.resume(atPacket: packet, byteOffset: target.byteOffset)
        return target
    }

    /// Moves the parser to `packet`, which the caller knows starts at `byteOffset` (from an index it
    /// built while parsing the same file before): like ``seek(toPacket:)``, without asking the format.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` before the file type is known or for a negative
    ///   packet or offset.
    public mutating func resume(atPacket packet: Int64, byteOffset: Int64) throws(MediaError) {
        guard fileType != nil, packet >= 0, byteOffset >= 0 else {
            throw MediaError(
                .invalidArgument, "AudioFileStreamParser cannot resume at packet \(packet), byte offset \(byteOffset)")
        }
        events.removeAll(keepingCapacity: true)
        head = 0
        failed = false
        inputEnd = PushInputEnd()
        input.reset(at: byteOffset)
        format.resume(atPacket: packet, byteOffset: byteOffset)
    }

    /// The file byte range of the audio the parser is holding in memory until a chunk that the container
    /// puts after it (an AIFF `COMM` after `SSND`; a CAF `pakt` after `data`, as FFmpeg writes ALAC), while
    /// it holds it; `nil` otherwise. A reader that can read the file at any offset may then call
    /// ``deferHeldAudio()`` rather than push the audio twice through memory.
    public var heldAudioRange: Range<Int64>? { failed ? nil : format.heldAudioRange }

    /// For a reader with random access to the file: the parser stops holding ``heldAudioRange`` and
    /// expects the bytes from the returned offset (the first after the audio) next. When the late chunk
    /// has come it reports the properties and ``AudioFileStreamEvent/readyToProducePackets`` as usual and
    /// then waits: call ``resume(atPacket:byteOffset:)`` with packet 0 and the audio's start (the
    /// ``AudioFileStreamEvent/dataOffset(_:)`` it reported) and push from there. Chunks between the audio
    /// and the late chunk are reported once; after the audio the parse goes on past the late chunk.
    /// A file read this way costs no memory for its audio, and its bytes are read once more only up to
    /// the late chunk's end.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` when no audio is held.
    public mutating func deferHeldAudio() throws(MediaError) -> Int64 {
        guard !failed, let offset = format.deferHeldAudio(&input) else {
            throw MediaError(
                .invalidArgument,
                "AudioFileStreamParser holds no audio to defer (\(fileType.map { "\($0)" } ?? "file type unknown"))")
        }
        inputEnd = PushInputEnd()
        return offset
    }

    private mutating func dequeue() -> AudioFileStreamEvent {
        let event = events[head]
        head += 1
        return event
    }

    /// The file type from the first bytes, `nil` while they are too few to tell.
    private func sniff() throws(MediaError) -> AudioFileType? {
        switch AudioFileSniffer.sniff(input.peek(upTo: input.available), isComplete: input.isFinished, hint: hint) {
        case .type(let type): return type
        case .needMoreBytes: return nil
        case .otherContainer(let name):
            throw MediaError(
                .unsupportedFormat,
                "\(name), which ContainerDemuxer reads but AudioFileStreamParser does not (it parses WAVE, AIFF, AIFC, "
                    + "CAF, NeXT, ADTS and MP3): it starts with \(AudioFileSniffer.describe(input.peek(upTo: 16)))",
                byteOffset: 0)
        case .unknown:
            if let hint { return hint }
            throw MediaError(
                .unsupportedFormat,
                "not a WAVE, AIFF, AIFC, CAF, NeXT, ADTS or MP3 file: it starts with \(AudioFileSniffer.describe(input.peek(upTo: 16)))",
                byteOffset: 0)
        }
    }
}

/// `AudioFileStreamSeek`'s answer: where a packet starts in the file.
public struct AudioFileStreamSeekOffset: Sendable, Hashable {
    /// The file offset of the packet's first byte.
    public var byteOffset: Int64
    /// Whether the offset is an estimate (`kAudioFileStreamSeekFlag_OffsetIsEstimated`): MP3 without an
    /// exact index.
    public var isEstimated: Bool

    /// An answer with both fields given.
    public init(byteOffset: Int64, isEstimated: Bool) {
        self.byteOffset = byteOffset
        self.isEstimated = isEstimated
    }
}
