public import Logging
public import MediaCore

/// Reads a Core Audio Format file: linear PCM in samples of ``framesPerSample`` frames, or a packetised
/// format (AAC, ALAC, …) as one packet per sample, like `AudioFile` reading packets.
///
/// ```swift
/// let reader = try CAFReader(path: "ring.caf")
/// print(reader.format, reader.packetTable?.primingFrames ?? 0)   // aac 44100 Hz stereo 2112
/// while let packet = try reader.next() { try decoder.process(packet, into: play) }
/// ```
///
/// Every chunk is parsed when the reader is created, in any order: `desc`, `kuki`, `pakt`, `chan`,
/// `info`; `free`, `uuid` and unknown chunks are skipped; chunks after `data` are read too; a `data`
/// size of -1 runs to the end of the file. The chunks are walked by the CAF parser of
/// ``AudioFileStreamParser`` (in a mode that reads every chunk and skips the audio), so the two find the
/// same chunks at the same offsets; the reader then checks `desc`, `pakt` and `kuki` with the same
/// ``CAFAudioDescription``, ``CAFPacketTable`` and ``CAFMagicCookie`` checks the parser uses.
///
/// - Linear PCM of every `mFormatFlags` combination (integer or float, big- or little-endian) with 8
///   (signed, delivered as u8), 16, 24, 32 or 64 (float) bits, interleaved: delivered little-endian as
///   ``/MediaCore/PCMFormat`` says, big-endian data swapped. Only complete frames are delivered. The file is read in
///   pieces, so memory stays flat.
/// - Packetised formats: one packet per sample, sizes from `pakt` (or `mBytesPerPacket` when constant),
///   frame counts from `mFramesPerPacket` (or `pakt`). `'aac '` becomes ``/MediaCore/AudioCodec/aac`` with the
///   cookie unwrapped to the AudioSpecificConfig; others ``/MediaCore/AudioCodec/other(fourCC:)`` with the raw
///   cookie. `pakt`'s priming frames are the first packets' ``/MediaCore/MediaSample/trimAtStart`` (spilling into
///   the next packets when they exceed one packet: 2112 = 1024 + 1024 + 64) and its remainder frames the
///   last packets' ``/MediaCore/MediaSample/trimAtEnd``. The packet table is held in memory.
///
/// Errors are ``/MediaCore/MediaError``s naming the chunk and its byte offset:
/// - ``/MediaCore/MediaError/Code/truncated``: a file cut short inside a header or chunk, a chunk size beyond the
///   file (up to 2^63-1), a file that ends without a `data` chunk;
/// - ``/MediaCore/MediaError/Code/invalidData``: not a `caff` file, a negative chunk size (but -1 for `data`), no
///   `desc`, zero channels or rate, a packetised format without `pakt`, `pakt` counts that disagree with
///   the data or with each other, a variable-length integer that never ends (a constant-size format's
///   `pakt` with `mNumberPackets` 0, as Apple's IMA4 writer leaves it, takes its count from `data`:
///   `CAFPacketTable.checkedConstantPacketCount(dataPackets:framesPerPacket:at:)`);
/// - ``/MediaCore/MediaError/Code/unsupportedFormat``: a file version other than 1, PCM bit depths without a
///   ``/MediaCore/PCMSampleType``.
///
/// ``seek(toPacket:)`` and ``seek(toFrame:)`` move within the data; a backward seek reopens the file.
///
/// What the reader works around rather than throws is in ``diagnostics`` and goes to ``logger``: bytes
/// after the last whole frame or packet of `data` (a file cut short, a writer killed mid-frame) as a
/// warning, a `data` size of -1 read to the end of the file as a note, chunks skipped as debug.
///
/// A pipe (whose length cannot be known up front) is read into memory whole. The reader is a class
/// because it owns its position in the file; it is not thread-safe.
public final class CAFReader: MediaSource, DiagnosticListing {
    /// The audio format of every sample.
    public let format: AudioFormat
    /// The `desc` chunk.
    public let description: CAFAudioDescription
    /// The `pakt` chunk, when the file has one.
    public let packetTable: CAFPacketTable?
    /// The `kuki` chunk's bytes as stored (for AAC, the `ES_Descriptor`), empty when there is none.
    public let magicCookie: [UInt8]
    /// Every chunk in file order: its type, the offset of its header and its declared `mChunkSize`.
    public let chunks: [(type: String, offset: Int64, size: Int64)]
    /// The `info` chunk's key/value strings, in order.
    public let info: [(String, String)]
    /// The byte offset of the first audio byte (after `data`'s `mEditCount`).
    public let dataOffset: Int64
    /// The number of audio bytes the reader will deliver from (the `data` chunk, or what is in the file).
    public let dataSize: Int64
    /// The most frames one PCM sample holds.
    public let framesPerSample: Int

    private var input: ForwardInput
    /// Opens the input afresh, to seek backwards.
    private let reopen: () throws(MediaError) -> ForwardInput
    /// The number of packets the reader delivers (for PCM, frames).
    public let packetCount: Int64
    private var nextPacket: Int64 = 0
    private var framesRead: Int64 = 0
    private var bytesRead: Int64 = 0
    private var failed = false
    /// Reuses the last sample's storage once its consumer has let go: no allocation per packet.
    private var recycler = SampleRecycler()
    private let pcm: (type: PCMSampleType, bigEndian: Bool, signed8: Bool)?
    /// The frames all packets hold, priming and remainder included (for PCM, ``packetCount``).
    public let totalFrames: Int64
    /// What the reader worked around while parsing, in file order, each with the metadata `stage`, `code`
    /// (`partialFrameDropped`, `trailingBytesIgnored`, `openDataSize`, `chunkSkipped`), `byteOffset` and,
    /// for bytes, `count` (see ``/MediaCore/DiagnosticKey``).
    public private(set) var diagnostics: [MediaDiagnostic] = []
    /// ``diagnostics`` (already ``/MediaCore/MediaDiagnostic``s), for ``/MediaCore/DiagnosticListing``.
    public var mediaDiagnostics: [MediaDiagnostic] { diagnostics }
    /// Where ``diagnostics`` are logged. Setting it logs them (all are found when the reader is made);
    /// `nil` (the default) logs nothing.
    public var logger: Logger? {
        didSet { for diagnostic in diagnostics { diagnostic.log(to: logger) } }
    }

    /// A short name for errors: `CAFReader`.
    public var name: String { Self.stageName }
    private static let stageName = "CAFReader"

    /// Opens and parses the file at `path` (`-` is standard input).
    ///
    /// - Throws: see the type's description; ``/MediaCore/MediaError/Code/invalidArgument`` for `framesPerSample` < 1.
    public convenience init(path: String, framesPerSample: Int = 4096) throws(MediaError) {
        do throws(MediaError) {
            let probe = try ForwardInput(path: path)
            if probe.size == nil {
                try self.init(bytes: try FileInput(path: path).readAll(), framesPerSample: framesPerSample)
            } else {
                try self.init(
                    first: probe, open: { () throws(MediaError) -> ForwardInput in try ForwardInput(path: path) },
                    framesPerSample: framesPerSample)
            }
        } catch {
            throw error.inStage(Self.stageName)
        }
    }

    /// Parses the CAF file in `bytes`.
    public convenience init(bytes: [UInt8], framesPerSample: Int = 4096) throws(MediaError) {
        do throws(MediaError) {
            try self.init(
                first: ForwardInput(bytes: bytes), open: { ForwardInput(bytes: bytes) },
                framesPerSample: framesPerSample)
        } catch {
            throw error.inStage(Self.stageName)
        }
    }

    private init(
        first: ForwardInput, open: @escaping () throws(MediaError) -> ForwardInput, framesPerSample: Int
    ) throws(MediaError) {
        guard framesPerSample >= 1 else {
            throw MediaError(.invalidArgument, "CAFReader framesPerSample must be at least 1, not \(framesPerSample)")
        }
        self.framesPerSample = framesPerSample
        let walked = try Self.walk(first)
        guard let walk = walked.walk, let audio = walked.audio else {
            // The walk throws at the end of a file without 'data'; this keeps the reader honest if it did not.
            throw MediaError.truncated(
                "CAF 'data' chunk header", needed: CAFFile.chunkHeaderSize, available: 0, at: first.position)
        }
        let data = (
            offset: audio.audioStart, size: audio.audioSize ?? 0, isOpen: audio.declaredSize == -1
        )
        chunks = walk.chunks
        info = walk.info
        magicCookie = walked.cookie?.bytes ?? []
        let cookieOffset = walked.cookie?.offset ?? 0
        guard let desc = walk.desc else {
            throw MediaError.invalidData("CAF file has no 'desc' chunk", at: Int64(CAFFile.fileHeaderSize))
        }
        description = desc.value
        let descOffset = desc.offset
        guard desc.value.sampleRate.isFinite, desc.value.sampleRate >= 1, desc.value.sampleRate <= Double(Int32.max)
        else {
            throw MediaError.invalidData(
                "CAF 'desc' mSampleRate of \(desc.value.sampleRate) is not a usable rate", at: descOffset)
        }
        guard desc.value.channelsPerFrame >= 1, desc.value.channelsPerFrame <= 4096 else {
            throw MediaError.invalidData(
                "CAF 'desc' mChannelsPerFrame of \(desc.value.channelsPerFrame) is not a usable channel count",
                at: descOffset)
        }
        let rate = Int(desc.value.sampleRate.rounded())
        let channels = Int(desc.value.channelsPerFrame)
        let layout = CAFChannelLayoutChunk.layout(walked.chan?[...], channels: channels)
        dataOffset = data.offset
        reopen = open
        input = try open()
        guard try input.skip(data.offset) == data.offset else {
            throw MediaError.truncated("CAF 'data' chunk", needed: 1, available: 0, at: data.offset)
        }

        if desc.value.isLinearPCM {
            let sampleType = try Self.pcmType(desc.value, at: descOffset)
            let frameBytes = sampleType.type.bytesPerSample * channels
            guard desc.value.bytesPerPacket == UInt32(frameBytes), desc.value.framesPerPacket == 1 else {
                throw MediaError(
                    .unsupportedFormat,
                    "CAF 'desc' linear PCM of \(count: desc.value.bitsPerChannel, "bit") × \(count: channels, "channel") with \(count: desc.value.bytesPerPacket, "byte") and \(count: desc.value.framesPerPacket, "frame") per packet is not packed interleaved PCM",
                    byteOffset: descOffset)
            }
            pcm = sampleType
            packetTable = nil
            format = .pcm(PCMFormat(sampleType.type), sampleRate: rate, channelLayout: layout)
            let frames = data.size / Int64(frameBytes)
            dataSize = frames * Int64(frameBytes)
            packetCount = frames
            totalFrames = frames
            diagnostics = Self.diagnose(walk.chunks, data: data, delivered: dataSize, partialFrameOf: frameBytes)
            return
        }

        pcm = nil
        let fixedBytes = Int(desc.value.bytesPerPacket)
        let fixedFrames = Int(desc.value.framesPerPacket)
        if fixedBytes == 0 || fixedFrames == 0 {
            guard let pakt = walked.pakt else {
                throw MediaError.invalidData(
                    "CAF '\(CAFFile.fourCCString(desc.value.formatID))' has packets of varying \(fixedBytes == 0 ? "size" : "duration") but no 'pakt' chunk",
                    at: descOffset)
            }
            let table = try CAFPacketTable(
                parsing: pakt.body, hasSizes: fixedBytes == 0, hasFrames: fixedFrames == 0, at: pakt.offset + 12)
            let (bytes, frames) = try table.checkedVariableTotals(
                fixedBytes: fixedBytes, fixedFrames: fixedFrames, dataSize: data.size, dataIsOpen: data.isOpen,
                at: pakt.offset)
            packetTable = table
            packetCount = table.numberPackets
            totalFrames = frames
            dataSize = bytes
        } else {
            let packets = data.size / Int64(fixedBytes)
            if let pakt = walked.pakt {
                let table = try CAFPacketTable(
                    parsing: pakt.body, hasSizes: false, hasFrames: false, at: pakt.offset + 12)
                let count = try table.checkedConstantPacketCount(
                    dataPackets: packets, framesPerPacket: fixedFrames, at: pakt.offset)
                packetTable = table
                packetCount = count ?? packets
            } else {
                packetTable = nil
                packetCount = packets
            }
            guard let frames = CAFPacketTable.product(packetCount, Int64(fixedFrames)) else {
                throw MediaError.invalidData(
                    "CAF 'data' of \(count: packetCount, "packet") of \(count: fixedFrames, "frame") holds more than 2^63-1 frames",
                    at: data.offset)
            }
            totalFrames = frames
            dataSize = packetCount * Int64(fixedBytes)  // ≤ data.size: cannot overflow
        }

        diagnostics = Self.diagnose(walk.chunks, data: data, delivered: dataSize, partialFrameOf: nil)
        if desc.value.formatID == CAFAudioDescription.mpeg4AAC {
            let asc = try CAFMagicCookie.audioSpecificConfig(unwrapping: magicCookie, at: cookieOffset)
            format = AudioFormat(
                codec: .aac, sampleRate: rate, channelLayout: layout, framesPerPacket: fixedFrames, magicCookie: asc)
        } else {
            format = AudioFormat(
                codec: .other(fourCC: desc.value.formatID), sampleRate: rate, channelLayout: layout,
                framesPerPacket: fixedFrames, magicCookie: magicCookie)
        }
    }

    /// Walks every chunk of `input` (as far as a `data` chunk of size -1) with ``CAFStreamParser``.
    private static func walk(_ input: ForwardInput) throws(MediaError) -> CAFStreamParser {
        // A pipe is read into memory before the reader is made: the size is known.
        var parser = CAFStreamParser(walkingFileOf: input.size ?? .max)
        try input.parse(with: &parser, pieceSize: 1 << 16, what: "CAF chunk header") { parser, _ in
            parser.isWalkDone
        }
        return parser
    }

    private static func pcmType(
        _ desc: CAFAudioDescription, at offset: Int64
    ) throws(MediaError) -> (type: PCMSampleType, bigEndian: Bool, signed8: Bool) {
        let isFloat = desc.formatFlags & CAFAudioDescription.flagIsFloat != 0
        let bigEndian = desc.formatFlags & CAFAudioDescription.flagIsLittleEndian == 0
        switch (isFloat, desc.bitsPerChannel) {
        case (false, 8): return (.u8, false, true)
        case (false, 16): return (.s16, bigEndian, false)
        case (false, 24): return (.s24, bigEndian, false)
        case (false, 32): return (.s32, bigEndian, false)
        case (true, 32): return (.f32, bigEndian, false)
        case (true, 64): return (.f64, bigEndian, false)
        default:
            throw MediaError(
                .unsupportedFormat,
                "CAF 'desc' linear PCM of \(desc.bitsPerChannel)-bit \(isFloat ? "float" : "integer") samples is not supported",
                byteOffset: offset)
        }
    }

    /// The next sample: up to ``framesPerSample`` PCM frames, or one packet; `nil` at the end.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/truncated`` when the file ends before the data the header promised;
    ///   ``/MediaCore/MediaError/Code/stageFinished`` after an error.
    public func next() throws(MediaError) -> MediaSample? {
        guard !failed else { throw MediaError.stageFinished(name).inStage(name) }
        do {
            return try read()
        } catch {
            failed = true
            throw error.inStage(name)
        }
    }

    private func read() throws(MediaError) -> MediaSample? {
        guard nextPacket < packetCount else { return nil }
        if let pcm {
            let frameBytes = format.bytesPerFrame
            let frames = Int(min(Int64(framesPerSample), packetCount - nextPacket))
            let sample = try recycler.make(
                format: .audio(format),
                timing: .audio(startFrame: framesRead, frameCount: frames, sampleRate: format.sampleRate),
                frameCount: frames
            ) { (bytes) throws(MediaError) in
                try readExactly(frames * frameBytes, into: &bytes)
                Self.toLittleEndian(&bytes, pcm)
            }
            nextPacket += Int64(frames)
            framesRead += Int64(frames)
            return sample
        }
        let index = Int(nextPacket)
        let size: Int
        if let sizes = packetTable?.packetSizes, !sizes.isEmpty {
            size = sizes[index]
        } else {
            size = Int(description.bytesPerPacket)
        }
        let frames: Int
        if let counts = packetTable?.packetFrames, !counts.isEmpty {
            frames = counts[index]
        } else {
            frames = format.framesPerPacket
        }
        let priming = Int64(packetTable?.primingFrames ?? 0)
        let validEnd = totalFrames - Int64(packetTable?.remainderFrames ?? 0)
        let end = framesRead + Int64(frames)
        let trimStart = Int(max(0, min(Int64(frames), priming - framesRead)))
        let trimEnd = Int(max(0, min(Int64(frames), end - max(validEnd, framesRead))))
        let sample = try recycler.make(
            format: .audio(format),
            timing: .audio(startFrame: framesRead, frameCount: frames, sampleRate: format.sampleRate),
            frameCount: frames,
            trimAtStart: trimStart, trimAtEnd: min(trimEnd, frames - trimStart)
        ) { (bytes) throws(MediaError) in try readExactly(size, into: &bytes) }
        nextPacket += 1
        framesRead = end
        return sample
    }

    /// Moves so that the next sample starts at packet `index` (for PCM, at frame `index`); `index` equal
    /// to the packet count moves to the end. Trims and timing are those of a front-to-back read.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for an index outside `0...packetCount`;
    ///   ``/MediaCore/MediaError/Code/truncated`` when the file is shorter than the packet's offset;
    ///   ``/MediaCore/MediaError/Code/stageFinished`` after an error.
    public func seek(toPacket index: Int64) throws(MediaError) {
        do throws(MediaError) {
            try move(toPacket: index)
        } catch {
            throw error.inStage(name)
        }
    }

    private func move(toPacket index: Int64) throws(MediaError) {
        guard !failed else { throw MediaError.stageFinished(name) }
        guard index >= 0, index <= packetCount else {
            throw MediaError(.invalidArgument, "CAFReader cannot seek to packet \(index) of \(packetCount)")
        }
        let bytesBefore: Int64
        let framesBefore: Int64
        if pcm != nil {
            bytesBefore = index * Int64(format.bytesPerFrame)  // ≤ dataSize
            framesBefore = index
        } else {
            let count = Int(index)
            if let sizes = packetTable?.packetSizes, !sizes.isEmpty {
                bytesBefore = sizes[..<count].reduce(Int64(0)) { $0 + Int64($1) }  // ≤ dataSize, checked at open
            } else {
                bytesBefore = index * Int64(description.bytesPerPacket)
            }
            if let counts = packetTable?.packetFrames, !counts.isEmpty {
                framesBefore = counts[..<count].reduce(Int64(0)) { $0 + Int64($1) }  // ≤ total, checked at open
            } else {
                framesBefore = index * Int64(format.framesPerPacket)
            }
        }
        let target = dataOffset + bytesBefore
        if target < input.position { input = try reopen() }
        let wanted = target - input.position
        guard try input.skip(wanted) == wanted else {
            throw MediaError.truncated(
                "CAF 'data' packet \(index)", needed: Int(clamping: wanted), available: 0, at: target)
        }
        nextPacket = index
        framesRead = framesBefore
        bytesRead = bytesBefore
    }

    /// Moves to the packet that holds frame `frame` (counted from the first frame of the first packet,
    /// priming included) and returns that packet's first frame. For PCM, that is `frame` itself.
    ///
    /// - Throws: as ``seek(toPacket:)``; ``/MediaCore/MediaError/Code/invalidArgument`` for a frame outside the stream.
    @discardableResult
    public func seek(toFrame frame: Int64) throws(MediaError) -> Int64 {
        guard frame >= 0, frame <= totalFrames else {
            throw MediaError(.invalidArgument, "CAFReader cannot seek to frame \(frame) of \(totalFrames)", stage: name)
        }
        if pcm != nil {
            try seek(toPacket: frame)
            return frame
        }
        if let counts = packetTable?.packetFrames, !counts.isEmpty {
            var start: Int64 = 0
            var index: Int64 = 0
            for count in counts {
                if start + Int64(count) > frame { break }
                start += Int64(count)
                index += 1
            }
            try seek(toPacket: index)
            return start
        }
        let perPacket = Int64(max(1, format.framesPerPacket))
        let index = min(frame / perPacket, packetCount)
        try seek(toPacket: index)
        return index * perPacket
    }

    /// Appends the next `count` bytes of `data` to `bytes`.
    private func readExactly(_ count: Int, into bytes: inout [UInt8]) throws(MediaError) {
        let offset = dataOffset + bytesRead
        let got = try input.read(upTo: count, appendingTo: &bytes)
        guard got == count else {
            throw MediaError.truncated("CAF 'data' sample \(nextPacket)", needed: count, available: got, at: offset)
        }
        bytesRead += Int64(count)
    }

    private static func toLittleEndian(
        _ bytes: inout [UInt8], _ pcm: (type: PCMSampleType, bigEndian: Bool, signed8: Bool)
    ) {
        if pcm.signed8 {
            for i in bytes.indices { bytes[i] ^= 0x80 }  // CAF's signed 8-bit → unsigned u8
            return
        }
        guard pcm.bigEndian else { return }
        reverseByteOrder(of: &bytes, width: pcm.type.bytesPerSample)
    }
}

@available(*, unavailable)
extension CAFReader: Sendable {}
