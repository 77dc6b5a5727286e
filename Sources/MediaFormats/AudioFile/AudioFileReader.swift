public import Logging
public import MediaCore

/// Reads any file ``AudioFileStreamParser`` reads (WAVE, AIFF, AIFC, CAF, NeXT, ADTS, MP3) as samples,
/// with random access: `AudioFile`'s `AudioFileReadPackets` and seeking, as a ``/MediaCore/MediaSource``.
///
/// ```swift
/// let reader = try AudioFileReader(path: "song.mp3")
/// print(reader.properties.fileType, reader.format)     // MP3, other(.mp3) 44100 Hz stereo
/// try reader.seek(toFrame: 44_100)                     // one second in
/// while let packet = try reader.next() { try decoder.process(packet, into: play) }
/// ```
///
/// - Samples are in the canonical forms of ``AudioStreamBasicDescription/audioFormat(channelLayout:magicCookie:)``:
///   linear PCM little-endian (big-endian data swapped, signed 8-bit made unsigned), one sample per
///   batch of frames; other constant-size packets (IMA4, A-law, µ-law) one sample per batch of
///   packets; variable-size packets (AAC, MP3, ALAC) one sample per packet.
/// - Time stamps count frames from the first packet's first frame, priming included. When the file
///   states priming and valid frames (a CAF `pakt`, an MP3 LAME tag), the frames outside them are the
///   samples' ``/MediaCore/MediaSample/trimAtStart`` and ``/MediaCore/MediaSample/trimAtEnd``, so a
///   decoder that honours trims returns exactly the valid frames. A file that holds packets after its
///   stated end (a header that counts too few, two files joined) plays them all after the priming, the
///   stated remainder included, as FFmpeg decodes it (``AudioFileSummary`` counts them the same way).
///   An MP3 frame cut off by the end of the file is handed out last, as the bytes there are: FFmpeg's
///   decoder decodes it, concealing what is missing, and so ffmpeg's decode (and the summary) has it.
/// - ``seek(toPacket:)`` is exact for every format: the reader keeps where each batch of packets
///   started as it reads (16 bytes a batch), and reads ahead (parsing, without making samples) to a
///   packet it has not seen. ``seek(toFrame:)`` is sample-accurate after decoding: it starts a few
///   packets early where the codec needs them (MP3's bit reservoir and filter bank, AAC's overlap)
///   and trims every frame before the target.
/// - Samples are cut from the parser's batches one at a time, as ``next()`` is called, into recycled
///   storage (``/MediaCore/SampleRecycler``): a consumer that lets go of each sample before asking for
///   the next makes a read allocate nothing per sample.
/// - What the parser worked around is in ``diagnostics``; a sample after skipped bytes carries
///   ``/MediaCore/MediaSample/Flags/discontinuity``.
///
/// A container that puts what the audio needs after the audio (an AIFF `COMM` after `SSND`, a CAF
/// `pakt` after `data`, as ffmpeg writes ALAC) is read as `AudioFile` reads it: the reader hops over
/// the audio to the late chunk, then comes back for the audio
/// (``AudioFileStreamParser/deferHeldAudio()``), so no audio is held in memory. Standard input cannot
/// hop: there the audio is held until the chunk arrives, at most 64 MiB.
///
/// Errors are the parser's (typed, with byte offsets) and the file's. The reader is a class because it
/// owns its position in the file; it is not thread-safe.
public final class AudioFileReader: MediaSource, DiagnosticListing {
    /// What the file says about its audio.
    public let properties: AudioFileProperties
    /// The format of every sample.
    public let format: AudioFormat
    /// What the parser skipped or worked around so far, in file order.
    public private(set) var diagnostics: [AudioFileStreamDiagnostic] = []
    /// ``diagnostics`` as ``/MediaCore/MediaDiagnostic``s, each as it is logged.
    public var mediaDiagnostics: [MediaDiagnostic] { diagnostics.map { $0.mediaDiagnostic(stage: name) } }
    /// Called with each diagnostic as the reader meets it (on the thread that reads), so that warnings
    /// reach the user while a graph that owns the reader runs: `{ print("warning:", $0) }`.
    public var onDiagnostic: (@Sendable (AudioFileStreamDiagnostic) -> Void)? {
        didSet { for diagnostic in diagnostics { onDiagnostic?(diagnostic) } }
    }
    /// Where ``diagnostics`` are logged as the reader meets them (levels and metadata as
    /// ``AudioFileStreamDiagnostic/mediaDiagnostic(stage:)`` says: skipped or missing audio is a
    /// warning). Setting it logs those found so far; `nil` (the default) logs nothing.
    public var logger: Logger? {
        didSet { for diagnostic in diagnostics { diagnostic.mediaDiagnostic(stage: name).log(to: logger) } }
    }
    /// A short name for errors.
    public var name: String { Self.stageName }
    private static let stageName = "AudioFileReader"

    private let input: any AudioReaderInput
    private var parser: AudioFileStreamParser
    private let rewrite: AudioStreamBasicDescription.PCMRewrite
    private let framesPerPacket: Int
    private let sampleRate: Int
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    /// The batch that samples are being cut from, the index of its next packet and that packet's first
    /// frame, and whether the next sample follows a gap; `nil` when it is used up. It is let go of
    /// before the parser is asked for the next batch, so that the parser can refill the batch's buffer
    /// in place.
    private var current: (batch: AudioFilePackets, next: Int, frame: Int64, discontinuity: Bool)?
    /// Makes the samples: the last one's storage and buffer are reused once the consumer has let go of
    /// it, so a steady read allocates nothing per sample.
    private var recycler = SampleRecycler()
    private var ended = false
    /// Whether the parser has been told that the file ended.
    private var parserFinished = false
    /// Packets in the batches seen so far (the furthest point read).
    private var totalPacketsSeen: Int64 = 0
    /// Where each batch seen so far starts: its first packet, byte offset and first frame (ascending).
    private var batchStarts: [(packet: Int64, offset: Int64, frame: Int64)] = []
    /// The absolute frame (priming included) where the next batch starts.
    private var nextFrame: Int64 = 0
    /// Packets to drop from the next batch (a seek to the middle of a batch).
    private var dropPackets: Int64 = 0
    /// Frames before this absolute frame are trimmed (priming, or a frame seek's target).
    private var trimBefore: Int64
    /// Frames from this absolute frame on are trimmed (remainder), when the file says; `nil` once the
    /// file turns out to hold packets after the stated end (see ``cutSample()``).
    private var trimFrom: Int64?
    /// An MP3 frame cut off by the end of the file: where its bytes are, how many there are, and its
    /// first frame. FFmpeg's MP3 decoder decodes such a frame (concealing what is missing), so it is
    /// handed out last, as ffmpeg's decode has it.
    private var cutPacket: (offset: Int64, count: Int, frame: Int64)?
    /// The stated end (priming + valid + remainder) until the first packet reaching into the remainder
    /// has decided whether packets follow it.
    private var statedEnd: Int64?
    /// The batch after ``current``, read ahead to see whether packets follow the stated end.
    private var lookahead: (batch: AudioFilePackets, next: Int, frame: Int64, discontinuity: Bool)?
    private var discontinuityPending = false

    /// Opens `path` (`-`: standard input, read front to back without seeking) and reads its properties.
    ///
    /// - Throws: the parser's errors (``/MediaCore/MediaError/Code/unsupportedFormat`` for a file none of
    ///   the formats is, ``/MediaCore/MediaError/Code/truncated`` for one that ends before its audio);
    ///   ``/MediaCore/MediaError/Code/unsupportedFormat`` for a PCM layout without a sample format.
    public convenience init(path: String) throws(MediaError) {
        do throws(MediaError) {
            try self.init(opening: path)
        } catch {
            throw error.inStage(Self.stageName)
        }
    }

    /// Reads the file in `stream` as its bytes arrive: ``next()`` returns each packet as soon as it has
    /// arrived (the parser hands them out four at a time, not in 64 KiB batches), and waits for the
    /// next; a seek waits for the bytes it needs. Returns once the properties have arrived.
    ///
    /// - Parameters:
    ///   - stream: the bytes, pushed by another thread.
    ///   - fileTypeHint: the type, when known (from a MIME type or a file name), as
    ///     ``AudioFileStreamParser/init(fileTypeHint:batching:)`` takes it.
    /// - Throws: as ``init(path:)``; ``/MediaCore/MediaError/Code/cancelled`` when the stream is
    ///   cancelled.
    public convenience init(stream: AudioByteStream, fileTypeHint: AudioFileType? = nil) throws(MediaError) {
        do throws(MediaError) {
            try self.init(
                input: AudioByteStreamInput(stream), fileTypeHint: fileTypeHint,
                batching: .init(maxBytes: 4096, maxPackets: 4))
        } catch {
            throw error.inStage(Self.stageName)
        }
    }

    private convenience init(opening path: String) throws(MediaError) {
        let input = try FileInput(path: path)
        // A whole file may be held: a container that puts what the audio needs after it (ffmpeg's ALAC
        // CAFs: `pakt` after `data`) is read front to back with its audio in memory until then.
        try self.init(input: input, fileTypeHint: nil, batching: .init(maxHeldBytes: input.size ?? (64 << 20)))
    }

    private init(
        input: any AudioReaderInput, fileTypeHint: AudioFileType?, batching: AudioFileStreamParser.Batching
    ) throws(MediaError) {
        self.input = input
        let path = input.path
        parser = AudioFileStreamParser(fileTypeHint: fileTypeHint, batching: batching)
        var properties = AudioFileProperties()
        var early: [AudioFileStreamEvent] = []
        var deferred = false
        readLoop: while true {
            while let event = try parser.next() {
                properties.take(event)
                if properties.isReadyToProducePackets { break readLoop }
                if case .diagnostic = event { early.append(event) }
            }
            if try parser.hopOverHeldAudio(in: input) {
                deferred = true
                continue
            }
            guard try Self.feed(input, into: &parser, buffer: &chunk) else {
                while let event = try parser.next() {
                    properties.take(event)
                    if properties.isReadyToProducePackets { break readLoop }
                }
                throw MediaError.truncated(
                    "\(path): the audio file's header", needed: 1, available: 0, at: input.position)
            }
        }
        if deferred { try parser.readDeferredAudio(from: input, dataOffset: properties.dataOffset) }
        guard let asbd = properties.dataFormat else {
            throw MediaError.invalidData("\(path) has no audio format before its packets", at: properties.dataOffset)
        }
        let mapped = try asbd.audioFormat(channelLayout: properties.channelLayout, magicCookie: properties.magicCookie)
        self.properties = properties
        format = mapped.format
        rewrite = mapped.rewrite
        framesPerPacket = max(1, Int(asbd.framesPerPacket))
        sampleRate = mapped.format.sampleRate
        trimBefore = properties.packetTableInfo?.primingFrames ?? 0
        trimFrom = properties.packetTableInfo.flatMap { $0.validFrames >= 0 ? $0.primingFrames + $0.validFrames : nil }
        statedEnd = trimFrom.map { $0 + (properties.packetTableInfo?.remainderFrames ?? 0) }
        for case .diagnostic(let d) in early { record(d) }
    }

    /// The next sample, or `nil` at the end of the audio.
    public func next() throws -> MediaSample? {
        do throws(MediaError) {
            while true {
                if let sample = try cutSample() { return sample }
                guard !ended else { return try takeCutPacket() }
                try pump()
            }
        } catch {
            throw error.inStage(name)
        }
    }

    /// Moves to `packet` (counting from 0), so that ``next()`` returns it first.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a negative packet or one past the
    ///   end; ``/MediaCore/MediaError/Code/io`` for standard input.
    public func seek(toPacket packet: Int64) throws(MediaError) {
        do throws(MediaError) {
            try move(toPacket: packet)
        } catch {
            throw error.inStage(name)
        }
    }

    private func move(toPacket packet: Int64) throws(MediaError) {
        guard packet >= 0 else { throw MediaError(.invalidArgument, "\(name) cannot seek to packet \(packet)") }
        current = nil  // samples not yet cut are not wanted any more
        lookahead = nil
        cutPacket = nil
        // Read ahead (parsing, without making samples) until a batch after `packet` or the end is seen.
        while !(batchStarts.last.map { $0.packet > packet } ?? false), !ended {
            try pump(makingSamples: false)
        }
        guard let start = batchStarts.last(where: { $0.packet <= packet }), packet <= totalPacketsSeen else {
            throw MediaError(
                .invalidArgument, "\(name) cannot seek to packet \(packet): the file has \(totalPacketsSeen)")
        }
        try input.seek(to: start.offset)
        try parser.resume(atPacket: start.packet, byteOffset: start.offset)
        ended = false
        parserFinished = false
        nextFrame = start.frame
        dropPackets = packet - start.packet
        trimBefore = properties.packetTableInfo?.primingFrames ?? 0
        discontinuityPending = false
    }

    /// Moves so that the samples ``next()`` returns, decoded with their trims honoured, start at valid
    /// frame `frame` (0 is the first frame after the priming).
    ///
    /// - Throws: as ``seek(toPacket:)``.
    public func seek(toFrame frame: Int64) throws(MediaError) {
        guard frame >= 0 else {
            throw MediaError(.invalidArgument, "\(name) cannot seek to frame \(frame)", stage: name)
        }
        let priming = properties.packetTableInfo?.primingFrames ?? 0
        let absolute = frame + priming
        let packet = absolute / Int64(framesPerPacket)
        try seek(toPacket: max(0, packet - Int64(preroll)))
        trimBefore = absolute
    }

    /// Packets a decoder needs before the one it should start at: MP3's bit reservoir reaches up to 511
    /// bytes back and its filter bank carries a frame of state; AAC overlaps one frame. (Apple IMA4
    /// needs none but is not exact either: QuickTime's decoder, and FFmpeg's after it, keeps its own
    /// predictor across packets while a packet header's step index matches and its 9-bit predictor is
    /// within 127 of it, so a decode that starts at a packet differs from one that started earlier by
    /// less than 128 16-bit steps until a header resets both; starting earlier does not shrink that.)
    private var preroll: Int {
        switch properties.dataFormat?.formatID {
        case AudioStreamBasicDescription.mpegLayer3, AudioStreamBasicDescription.mpegLayer2: return 10
        case AudioStreamBasicDescription.mpeg4AAC: return 2
        default: return 0
        }
    }

    // MARK: - Reading

    /// Reads and parses until a batch to cut samples from is there (or, not making samples, one batch
    /// has been seen) or the file ends.
    private func pump(makingSamples: Bool = true) throws(MediaError) {
        if current == nil, let lookahead {
            current = lookahead
            self.lookahead = nil
            return
        }
        while current == nil, !ended {
            while let event = try parser.next() {
                switch event {
                case .packets(let batch):
                    try take(batch, makingSamples: makingSamples)
                    if !makingSamples || current != nil { return }
                case .diagnostic(let diagnostic):
                    record(diagnostic)
                    if case .resynchronized = diagnostic { discontinuityPending = true }
                    if case .truncatedPacket(let offset, _, let available) = diagnostic, makingSamples,
                        properties.fileType == .mp3, available > 0
                    {
                        cutPacket = (offset, available, nextFrame)
                    }
                default: break
                }
            }
            if parserFinished {
                ended = true
            } else if !(try Self.feed(input, into: &parser, buffer: &chunk)) {
                parserFinished = true
            }
        }
    }

    /// Keeps `diagnostic` unless it was recorded before (the file is read again after a seek back):
    /// diagnostics come in file order, so one at or before the last recorded offset is a repeat.
    private func record(_ diagnostic: AudioFileStreamDiagnostic) {
        if let last = diagnostics.last, diagnostic.byteOffset <= last.byteOffset, diagnostics.contains(diagnostic) {
            return
        }
        diagnostics.append(diagnostic)
        onDiagnostic?(diagnostic)
        if let logger { diagnostic.mediaDiagnostic(stage: name).log(to: logger) }
    }

    /// Pushes the next piece of the file; `false` (after finishing the parser) at its end.
    private static func feed(
        _ input: any AudioReaderInput, into parser: inout AudioFileStreamParser, buffer: inout [UInt8]
    )
        throws(MediaError) -> Bool
    {
        let read = buffer.withUnsafeMutableBytes { raw in Result { () throws(MediaError) in try input.read(into: raw) }
        }
        let n = try read.get()
        guard n > 0 else {
            parser.finish()
            return false
        }
        buffer.withUnsafeBytes { parser.push(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        return true
    }

    /// Records where `batch` starts and, when making samples, makes it the batch to cut them from,
    /// past the packets a seek into its middle drops.
    private func take(_ batch: AudioFilePackets, makingSamples: Bool) throws(MediaError) {
        // Frame counts come from the file (packets × frames per packet, up to 2^32 each in a CAF): a
        // timeline past 2^62 frames is refused before the sums below could overflow.
        guard batch.frameCount >= 0, nextFrame <= Int64.max / 2 - batch.frameCount else {
            throw MediaError.invalidData(
                "\(name): the packets before byte offset \(batch.fileOffset) hold more than 2^62 frames",
                at: batch.fileOffset)
        }
        if batchStarts.last.map({ $0.packet < batch.firstPacket }) ?? true {
            batchStarts.append((batch.firstPacket, batch.fileOffset, nextFrame))
        }
        totalPacketsSeen = max(totalPacketsSeen, batch.firstPacket + Int64(batch.packetCount))
        let discontinuity = batch.isDiscontinuity || discontinuityPending
        discontinuityPending = false
        guard makingSamples else {
            nextFrame += batch.frameCount
            return
        }
        let drop = Int(min(max(0, dropPackets), Int64(batch.packetCount)))
        dropPackets = 0
        var first = nextFrame  // of the first packet kept
        if batch.descriptions.isEmpty {
            first += Int64(drop) * (batch.packetCount > 0 ? batch.frameCount / Int64(batch.packetCount) : 0)
            nextFrame += batch.frameCount
        } else {
            for (i, description) in batch.descriptions.enumerated() {
                if i < drop { first += Int64(frames(of: description)) }
                nextFrame += Int64(frames(of: description))
            }
        }
        current = (batch, drop, first, discontinuity)
    }

    /// The next sample cut from the current batch, `nil` when it has none left: linear PCM and other
    /// constant-size packets one sample for the rest of the batch (PCM rewritten to the canonical
    /// layout), variable-size packets one sample each.
    ///
    /// The first packet that reaches into the stated remainder decides whether it is trimmed: when the
    /// file holds packets after the stated end (a header that counts too few frames, two files joined),
    /// nothing is trimmed at the end, as FFmpeg decodes such a file, and every frame present plays.
    private func cutSample() throws(MediaError) -> MediaSample? {
        guard let (batch, index, frame, discontinuity) = current else { return nil }
        if let trimFrom, let statedEnd, !batch.descriptions.isEmpty, index < batch.descriptions.count,
            frame + Int64(frames(of: batch.descriptions[index])) > trimFrom
        {
            if try framesFollow(statedEnd, from: index, at: frame) { self.trimFrom = nil }
            self.statedEnd = nil  // decided
        }
        if batch.descriptions.isEmpty {
            current = nil
            let bytesPerPacket = batch.packetCount > 0 ? batch.bytes.count / batch.packetCount : 0
            let framesEach = batch.packetCount > 0 ? Int(batch.frameCount) / batch.packetCount : 0
            let frames = Int(batch.frameCount) - index * framesEach
            guard frames > 0 else { return nil }
            return emit(
                batch.bytes[(index * bytesPerPacket)...], at: frame, frames: frames, discontinuity: discontinuity
            ) { self.rewritePCM(&$0) }
        }
        guard index < batch.descriptions.count else {
            current = nil
            return nil
        }
        let description = batch.descriptions[index]
        let frames = frames(of: description)
        current = index + 1 < batch.descriptions.count ? (batch, index + 1, frame + Int64(frames), false) : nil
        let start = description.startOffset
        return emit(
            batch.bytes[start..<(start + description.dataByteSize)], at: frame, frames: frames,
            discontinuity: discontinuity)
    }

    /// Whether the packets from `index` of the current batch (its first frame `frame`) reach past
    /// absolute frame `end`: in the batch, or in the next one, which is read ahead (into ``lookahead``)
    /// to see.
    private func framesFollow(_ end: Int64, from index: Int, at frame: Int64) throws(MediaError) -> Bool {
        guard let batch = current?.batch else { return false }
        var reached = frame
        for description in batch.descriptions[index...] {
            reached += Int64(frames(of: description))
            if reached > end { return true }
        }
        if lookahead == nil, !ended {
            let kept = current
            current = nil
            try pump()
            lookahead = current
            current = kept
        }
        guard let next = lookahead?.batch else { return false }
        return reached + next.frameCount > end
    }

    /// The MP3 frame cut off by the end of the file (``cutPacket``), once: its bytes read back from the
    /// input, as one sample of a whole frame's duration. `nil` when there is none, or when the input cannot
    /// go back for it (standard input).
    private func takeCutPacket() throws(MediaError) -> MediaSample? {
        guard let cut = cutPacket else { return nil }
        cutPacket = nil
        do throws(MediaError) {
            try input.seek(to: cut.offset)
        } catch {
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: cut.count)
        var filled = 0
        while filled < cut.count {
            let read = bytes.withUnsafeMutableBytes { raw in
                Result { () throws(MediaError) in
                    try input.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]))
                }
            }
            let n = try read.get()
            guard n > 0 else { return nil }
            filled += n
        }
        return emit(bytes[...], at: cut.frame, frames: framesPerPacket, discontinuity: false)
    }

    /// The frames `description`'s packet decodes to.
    private func frames(of description: AudioStreamPacketDescription) -> Int {
        description.variableFramesInPacket > 0 ? description.variableFramesInPacket : framesPerPacket
    }

    /// A sample of `bytes` (then changed by `rewrite`) covering `frames` frames from absolute frame
    /// `start`, trimmed where they fall outside the valid frames.
    private func emit(
        _ bytes: ArraySlice<UInt8>, at start: Int64, frames: Int, discontinuity: Bool,
        rewrite: (inout [UInt8]) -> Void = { _ in }
    ) -> MediaSample {
        let trimAtStart = Int(min(Int64(frames), max(0, trimBefore - start)))
        let trimAtEnd = trimFrom.map { Int(min(Int64(frames - trimAtStart), max(0, start + Int64(frames) - $0))) } ?? 0
        var flags: MediaSample.Flags = [.keyframe]
        if discontinuity { flags.insert(.discontinuity) }
        return recycler.make(
            format: .audio(format), timing: .audio(startFrame: start, frameCount: frames, sampleRate: sampleRate),
            frameCount: frames, flags: flags, trimAtStart: trimAtStart, trimAtEnd: trimAtEnd
        ) { payload in
            payload.append(contentsOf: bytes)
            rewrite(&payload)
        }
    }

    private func rewritePCM(_ bytes: inout [UInt8]) {
        switch rewrite {
        case .none: break
        case .reverseBytes(let width): reverseByteOrder(of: &bytes, width: width)
        case .flipSignBit: for i in bytes.indices { bytes[i] ^= 0x80 }
        }
    }
}

@available(*, unavailable) extension AudioFileReader: Sendable {}
