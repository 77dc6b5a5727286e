public import Logging
public import MediaCore

/// Reads the PCM audio of a WAV file as interleaved samples, like `AVAudioFile` reading in its file format.
///
/// The header is parsed when the reader is created, so ``format`` and ``frameCount`` are known before the
/// first ``next()``. Each ``next()`` then returns up to ``framesPerSample`` frames (the last sample is
/// shorter) as stored in the file: little-endian, interleaved, with no conversion. A file is read in
/// pieces, so memory stays flat whatever its length.
///
/// ```swift
/// let reader = try WAVReader(path: "take1.wav")
/// print(reader.format, reader.frameCount)     // s24 48000 Hz stereo 2880000
/// while let sample = try reader.next() {
///     process(sample)
/// }
/// ```
///
/// Supported: integer PCM of 8 (unsigned), 16, 24 (packed) and 32 bits, IEEE float of 32 and 64 bits,
/// any number of channels, `WAVE_FORMAT_EXTENSIBLE` with a PCM or float sub-format, chunks in any order
/// before `data` (unknown ones skipped, with their pad byte), and RF64/BW64 files with a `ds64` chunk.
/// The chunks are walked by the WAVE parser of ``AudioFileStreamParser``, told to accept PCM only, so a
/// file reads the same through both.
///
/// Damaged files are read the way FFmpeg and SoX read them, and what was worked around is recorded in
/// ``diagnostics`` rather than thrown:
/// - a `data` chunk that declares more bytes than the file holds (a file cut short) delivers the frames
///   that are there (``Diagnostic/Code/dataBeyondEndOfFile``);
/// - data that ends partway through a frame delivers the complete frames only, never a partial one
///   (``Diagnostic/Code/partialFrameDropped``);
/// - a `data` size of `0xFFFFFFFF`, or of 0 with bytes after it, is read to the end of the file
///   (``Diagnostic/Code/openDataSize``).
///
/// Everything else that is wrong with the header throws a ``/MediaCore/MediaError`` with its byte offset: not a
/// RIFF/WAVE file or bytes before `data` that are no chunk header (``/MediaCore/MediaError/Code/invalidData``),
/// a header or a chunk before `data` cut short
/// (``/MediaCore/MediaError/Code/truncated``), zero channels, rate or bits per sample, a block align that is not
/// channels × bytes per sample, a missing `fmt ` or `data` chunk (``/MediaCore/MediaError/Code/invalidData``, or
/// ``/MediaCore/MediaError/Code/truncated`` when the RIFF size shows the file was cut before `data`), and a format
/// that is not PCM or a bit depth without a ``/MediaCore/PCMSampleType`` (``/MediaCore/MediaError/Code/unsupportedFormat``).
///
/// The reader is a class because it owns its position in the file: copies of a value would share it.
/// It is not thread-safe; hand it to one task at a time.
public final class WAVReader: MediaSource, DiagnosticListing {
    /// The audio format of every sample: PCM of the file's sample type, interleaved, at its rate and
    /// channel layout (the extensible channel mask when it matches the channel count, otherwise
    /// ``/MediaCore/ChannelLayout/default(channelCount:)``).
    public let format: AudioFormat
    /// The `fmt ` chunk as written, with fields the ``format`` does not carry (valid bits, the raw mask).
    public let formatChunk: WAVFormatChunk
    /// The number of frames the reader will deliver: the complete frames of the `data` chunk that are in
    /// the file.
    ///
    /// Exact for byte arrays and regular files. For a pipe, whose length is unknown until it ends, it is
    /// what the header declares (the stream may end sooner, which is then recorded in ``diagnostics``), and
    /// -1 when the header leaves the length open.
    public let frameCount: Int64
    /// The byte offset of the first audio byte in the file.
    public let dataOffset: Int64
    /// The most frames one sample holds.
    public let framesPerSample: Int
    /// Frames delivered so far: the first frame of the next sample.
    public private(set) var framesRead: Int64 = 0
    /// What the reader worked around, in the order found: filled by the header at creation, and by
    /// ``next()`` when a pipe ends early.
    public private(set) var diagnostics: [Diagnostic] { didSet { logNewDiagnostics() } }
    /// Where ``diagnostics`` are logged as they are found, each as a warning with the metadata `stage`,
    /// `code` (e.g. `dataBeyondEndOfFile`) and `byteOffset` (see ``/MediaCore/DiagnosticKey``). Setting it
    /// logs those the header gave; `nil` (the default) logs nothing.
    public var logger: Logger? {
        didSet {
            loggedCount = 0
            logNewDiagnostics()
        }
    }
    private var loggedCount = 0
    /// ``diagnostics`` as ``/MediaCore/MediaDiagnostic``s, each as it is logged.
    public var mediaDiagnostics: [MediaDiagnostic] { diagnostics.map { $0.mediaDiagnostic(stage: name) } }

    private let input: ForwardInput
    private let bytesPerFrame: Int
    private let maximumSampleBytes: Int
    private let dataChunkOffset: Int64
    /// Whole-frame data bytes not yet read, or `nil` to read to the end of the input.
    private var dataBytesLeft: Int64?
    private var state = State.reading

    private enum State {
        case reading
        case ended
        case failed
    }

    /// Opens the WAV file at `path` (`-` reads standard input) and parses its header.
    ///
    /// - Parameters:
    ///   - path: the file to read.
    ///   - framesPerSample: the most frames in one sample (at least 1).
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for `framesPerSample` below 1,
    ///   ``/MediaCore/MediaError/Code/io`` if the file cannot be opened or read, and the header errors the type's
    ///   documentation lists.
    public convenience init(path: String, framesPerSample: Int = 4096) throws(MediaError) {
        do throws(MediaError) {
            try Self.check(framesPerSample: framesPerSample)
            try self.init(input: ForwardInput(path: path), framesPerSample: framesPerSample)
        } catch {
            throw error.inStage(Self.stageName)
        }
    }

    /// Opens the WAV file at `path` and reads only the frames in `frames`: the reader seeks to the
    /// first, its samples' timing starts there (frame `frames.lowerBound` of the whole file), and it
    /// ends after the last (or at the end of the data, whichever comes first).
    ///
    /// This is how several readers share one file, each reading its own part on its own thread: the
    /// segments of MediaFFmpeg's `ParallelAACEncoder` are read this way. ``frameCount`` stays the whole
    /// file's; ``framesRead`` starts at `frames.lowerBound`.
    ///
    /// - Parameters:
    ///   - path: the file to read; a regular file (standard input and pipes cannot seek).
    ///   - frames: the frames to deliver, in the file's frame numbers.
    ///   - framesPerSample: the most frames in one sample (at least 1).
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a negative range start or
    ///   `framesPerSample` below 1, ``/MediaCore/MediaError/Code/io`` for a pipe or a failed seek, and
    ///   the header errors the type's documentation lists.
    public convenience init(path: String, frames: Range<Int64>, framesPerSample: Int = 4096) throws(MediaError) {
        do throws(MediaError) {
            try Self.check(framesPerSample: framesPerSample)
            guard frames.lowerBound >= 0 else {
                throw MediaError(.invalidArgument, "WAVReader frame range \(frames) starts before frame 0")
            }
            try self.init(input: ForwardInput(path: path), framesPerSample: framesPerSample)
            try restrict(to: frames)
        } catch {
            throw error.inStage(Self.stageName)
        }
    }

    /// Reads a WAV file held in memory and parses its header.
    ///
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - framesPerSample: the most frames in one sample (at least 1).
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for `framesPerSample` below 1, and the header errors the
    ///   type's documentation lists.
    public convenience init(bytes: [UInt8], framesPerSample: Int = 4096) throws(MediaError) {
        do throws(MediaError) {
            try Self.check(framesPerSample: framesPerSample)
            try self.init(input: ForwardInput(bytes: bytes), framesPerSample: framesPerSample)
        } catch {
            throw error.inStage(Self.stageName)
        }
    }

    /// The name errors and diagnostics carry as their stage: `WAVReader`.
    public var name: String { Self.stageName }
    private static let stageName = "WAVReader"

    private init(input: ForwardInput, framesPerSample: Int) throws(MediaError) {
        let header = try Self.readHeader(from: input)
        guard let first = header.formatChunk, let dataSizeField = header.dataSizeField else {
            // The parser reaches the audio only after a `fmt ` chunk and a `data` chunk header.
            throw MediaError.invalidData("WAV header ended without a 'fmt ' and a 'data' chunk", at: input.position)
        }
        let (chunk, formatOffset) = first
        let blockAlign = chunk.blockAlign
        let (maximumBytes, overflow) = framesPerSample.multipliedReportingOverflow(by: blockAlign)
        guard !overflow else {
            throw MediaError(
                .invalidArgument,
                "WAVReader frames per sample of \(framesPerSample) times \(count: blockAlign, "byte") per frame overflows"
            )
        }
        self.input = input
        self.framesPerSample = framesPerSample
        bytesPerFrame = blockAlign
        maximumSampleBytes = maximumBytes
        formatChunk = chunk
        let (layout, maskIgnored) = chunk.channelLayout()
        format = .pcm(
            PCMFormat(try chunk.pcmSampleType(chunkOffset: formatOffset)), sampleRate: chunk.sampleRate,
            channelLayout: layout)
        dataOffset = input.position
        dataChunkOffset = dataOffset - 8
        var diagnostics = header.ignoredFormatChunks.map {
            Diagnostic(
                .duplicateFormatChunk, "WAV file has a second 'fmt ' chunk before 'data'; the first one is used",
                byteOffset: $0)
        }

        // How many bytes to read: what the chunk declares, cut to what the file holds.
        let available = input.remaining
        let declared = header.audio?.declaredSize
        var limit: Int64? = declared ?? 0
        if declared == nil, let open = Self.openSize(field: dataSizeField, remaining: available, at: dataChunkOffset) {
            diagnostics.append(open)
            limit = available
        }
        diagnostics += Self.formatDiagnostics(chunk, formatOffset: formatOffset, maskIgnored: maskIgnored)
        if let declared, let available, declared > available {
            diagnostics.append(
                Diagnostic(
                    .dataBeyondEndOfFile,
                    "WAV 'data' chunk declares \(count: declared, "byte") but the file holds \(available) after its header; reading those",
                    byteOffset: dataChunkOffset))
            limit = available
        }
        if let limit {
            let frames = limit / Int64(blockAlign)
            let partial = limit % Int64(blockAlign)
            if partial > 0 {
                diagnostics.append(
                    Self.partialFrame(partial, of: blockAlign, at: dataOffset + frames * Int64(blockAlign)))
            }
            frameCount = frames
            dataBytesLeft = frames * Int64(blockAlign)
        } else {
            frameCount = -1
            dataBytesLeft = nil
        }
        self.diagnostics = diagnostics
    }

    /// Walks the chunks up to the first audio byte with the WAVE stream parser (PCM only), leaving
    /// `input` there. The parser is fed one byte at a time, so that it never holds audio bytes that a
    /// pipe could not give back, and what it skips (chunks the reader does not need) is skipped in
    /// `input` without being read into memory.
    private static func readHeader(from input: ForwardInput) throws(MediaError) -> WAVEStreamParser {
        var parser = WAVEStreamParser(batching: AudioFileStreamParser.Batching(), pcmOnly: true)
        try input.parse(with: &parser, pieceSize: 1, what: "WAV header") { _, events in
            events.contains(.readyToProducePackets)
        }
        return parser
    }

    /// The diagnostic for a `data` chunk whose size field leaves the size open (`0xFFFFFFFF`, or 0
    /// with bytes after it), read to the end of the input; `nil` for a size of 0 with nothing after it.
    private static func openSize(field: Int64, remaining: Int64?, at offset: Int64) -> Diagnostic? {
        if field != 0 {
            return Diagnostic(
                .openDataSize,
                "WAV 'data' chunk size is 0xFFFFFFFF (unknown, as streaming writers leave it); reading to the end of the file",
                byteOffset: offset)
        }
        // FFmpeg reads a zero-sized data chunk to the end of the file (streaming writers leave 0 too).
        switch remaining {
        case .some(0):
            return nil
        case .some(let remaining):
            return Diagnostic(
                .openDataSize,
                "WAV 'data' chunk declares 0 bytes but \(remaining) follow; reading them to the end of the file, as FFmpeg does",
                byteOffset: offset)
        case .none:
            return Diagnostic(
                .openDataSize, "WAV 'data' chunk declares 0 bytes; reading to the end of the stream, as FFmpeg does",
                byteOffset: offset)
        }
    }

    /// What the `fmt ` chunk at `formatOffset` needed worked around: a channel mask set aside, valid
    /// bits beyond the container.
    private static func formatDiagnostics(_ chunk: WAVFormatChunk, formatOffset: Int64, maskIgnored: Bool)
        -> [Diagnostic]
    {
        var found: [Diagnostic] = []
        if maskIgnored {
            let mask = chunk.channelMask
            found.append(
                Diagnostic(
                    .channelMaskIgnored,
                    "WAV channel mask 0x\(FourCC.hex(mask, digits: 8)) names \(mask.nonzeroBitCount) speakers but the file has \(count: chunk.channelCount, "channel"); using the default layout",
                    byteOffset: formatOffset + 28))
        }
        if chunk.isExtensible && chunk.validBitsPerSample > chunk.bitsPerSample {
            found.append(
                Diagnostic(
                    .validBitsExceedContainer,
                    "WAV wValidBitsPerSample \(chunk.validBitsPerSample) exceeds the \(chunk.bitsPerSample)-bit container; samples are delivered as stored",
                    byteOffset: formatOffset + 26))
        }
        return found
    }

    /// Narrows a reader that has read nothing yet to `frames` (cut to the data it holds) and seeks to
    /// the first of them.
    private func restrict(to frames: Range<Int64>) throws(MediaError) {
        let available = frameCount >= 0 ? frameCount : Int64.max
        let first = min(frames.lowerBound, available)
        let end = max(first, min(frames.upperBound, available))
        if first > 0 { try input.seek(to: dataOffset + first * Int64(bytesPerFrame)) }
        framesRead = first
        dataBytesLeft = (end - first) * Int64(bytesPerFrame)
    }

    /// The next up to ``framesPerSample`` frames, or `nil` after the last.
    ///
    /// Each sample's timing starts at ``framesRead`` at a timescale of the sample rate. After `nil`, further
    /// calls return `nil`; after an error, they throw ``/MediaCore/MediaError/Code/stageFinished``. Every
    /// error names the stage `WAVReader`.
    public func next() throws(MediaError) -> MediaSample? {
        do throws(MediaError) {
            return try read()
        } catch {
            throw error.inStage(name)
        }
    }

    private func read() throws(MediaError) -> MediaSample? {
        switch state {
        case .reading: break
        case .ended: return nil
        case .failed: throw MediaError.stageFinished(name)
        }
        var wanted = maximumSampleBytes
        if let left = dataBytesLeft { wanted = Int(min(Int64(wanted), left)) }
        guard wanted > 0 else {
            state = .ended
            return nil
        }
        let offset = input.position
        var bytes: [UInt8]
        do {
            bytes = try input.read(upTo: wanted)
        } catch {
            state = .failed
            throw error
        }
        if bytes.count < wanted {
            // The input ended first: a pipe, or a file cut while it was being read. Keep the whole frames.
            state = .ended
            if let left = dataBytesLeft {
                let got = offset - dataOffset + Int64(bytes.count)
                diagnostics.append(
                    Diagnostic(
                        .dataBeyondEndOfFile,
                        "WAV input ended \(count: got, "byte") into the data, \(count: left - Int64(bytes.count), "byte") short of what the header declares",
                        byteOffset: dataChunkOffset))
            }
            let partial = bytes.count % bytesPerFrame
            if partial > 0 {
                let start = offset + Int64(bytes.count - partial)
                diagnostics.append(Self.partialFrame(Int64(partial), of: bytesPerFrame, at: start))
                bytes.removeLast(partial)
            }
        }
        if let left = dataBytesLeft { dataBytesLeft = left - Int64(bytes.count) }
        let frames = bytes.count / bytesPerFrame
        guard frames > 0 else {
            state = .ended
            return nil
        }
        let sample = MediaSample(
            format: .audio(format), data: bytes,
            timing: .audio(startFrame: framesRead, frameCount: frames, sampleRate: format.sampleRate),
            frameCount: frames)
        framesRead += Int64(frames)
        return sample
    }

    private func logNewDiagnostics() {
        guard let logger else { return }
        while loggedCount < diagnostics.count {
            diagnostics[loggedCount].mediaDiagnostic(stage: name).log(to: logger)
            loggedCount += 1
        }
    }

    private static func check(framesPerSample: Int) throws(MediaError) {
        guard framesPerSample >= 1 else {
            throw MediaError(.invalidArgument, "WAVReader frames per sample must be at least 1, not \(framesPerSample)")
        }
    }

    private static func partialFrame(_ partial: Int64, of blockAlign: Int, at offset: Int64) -> Diagnostic {
        Diagnostic(
            .partialFrameDropped,
            "WAV data ends \(count: partial, "byte") into a \(blockAlign)-byte frame; the partial frame is dropped",
            byteOffset: offset)
    }
}

@available(*, unavailable)
extension WAVReader: Sendable {}
