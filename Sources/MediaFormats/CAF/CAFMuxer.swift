public import MediaCore

/// Writes linear PCM or AAC samples as a Core Audio Format file, the way Apple's `AudioFile` records.
///
/// ```swift
/// let encoder = CheckedStage(try AACEncoder(bitRate: 128_000))
/// let muxer = CheckedSink(CAFMuxer(output: try FileOutput(path: "take1.caf"), info: [("title", "Take 1")]))
/// while let pcm = try tone.next() {
///     try encoder.process(pcm) { packet in try muxer.write(packet) }
/// }
/// try encoder.finish { packet in try muxer.write(packet) }
/// try muxer.finish()
/// ```
///
/// The header is written when the first sample arrives, from its format: `caff` file header, `desc`,
/// `chan` (a channel bitmap, only for a specified layout other than mono and stereo), `kuki` (AAC),
/// `info` (when `info` pairs were given), then `data` with `mEditCount` 0 and `mChunkSize` -1 (to the end
/// of the file), so that a recording killed mid-way is still a readable file.
///
/// - Linear PCM: interleaved s16, s24, s32, f32 or f64, written little-endian (`mFormatFlags`
///   `kCAFLinearPCMFormatFlagIsLittleEndian`, plus `IsFloat` for floats). CAF's 8-bit PCM is signed, so
///   u8 samples are converted (each byte XOR 0x80) and written as 8-bit signed integers. Works on
///   outputs that cannot seek: the `data` size then stays -1.
/// - AAC (`mFormatID` `'aac '`, `mBytesPerPacket` 0, `mFramesPerPacket` from the format, usually 1024):
///   one packet per sample. `kuki` is an MPEG-4 `ES_Descriptor` around the AudioSpecificConfig, as Apple
///   writes it (39 bytes for a 2-byte config), with the bitrates patched in at ``finish()``. ``finish()``
///   patches the `data` size and appends `pakt` with every packet size, `mPrimingFrames` = the sum of the
///   samples' ``/MediaCore/MediaSample/trimAtStart``, `mRemainderFrames` = the sum of their
///   ``/MediaCore/MediaSample/trimAtEnd`` and `mNumberValidFrames` = packets × frames per packet − priming −
///   remainder. As `pakt` must be written after the packets, an output that cannot seek is refused at
///   the first sample with ``/MediaCore/MediaError/Code/unsupportedFormat``.
///
/// Every sample must have the first one's format. After ``write(_:)`` throws, ``finish()`` still
/// completes the file with what was written. When no sample arrived, ``finish()`` closes the output
/// without writing anything.
///
/// The driver keeps the life cycle (no write after an error or after ``finish()``, `finish` once) and
/// stamps the errors with the stage's name and the sample's index; to call the muxer by hand, wrap it
/// in a ``/MediaCore/CheckedSink``, which does the same.
///
/// The muxer is a class because it drives one output. It is not thread-safe.
public final class CAFMuxer: MediaSink {
    private let output: any MediaOutput
    private let info: [(String, String)]
    private let pcmByteOrder: ByteOrder
    private let reservedSpace: Int
    /// The format of the first sample; every later one must match it.
    public private(set) var format: AudioFormat?
    /// Packets (AAC) or frames (PCM) written so far.
    public private(set) var packetsWritten: Int64 = 0
    /// Audio bytes written into `data` so far (without `mEditCount`).
    public private(set) var dataBytesWritten: Int64 = 0
    private var dataSizeOffset: Int64?
    private var kukiOffset: Int64?
    private var isAAC = false
    private var convertsU8 = false
    /// Bytes per sample value to reverse when writing big-endian PCM, or 0.
    private var swapBytes = 0
    private var packetSizes: [Int] = []
    private var maxPacketSize = 0
    private var primingFrames: Int64 = 0
    private var remainderFrames: Int64 = 0

    /// The byte order in which linear PCM is stored.
    public enum ByteOrder: Sendable, Hashable {
        /// Little-endian: `kCAFLinearPCMFormatFlagIsLittleEndian` set, as iOS records.
        case littleEndian
        /// Big-endian: the flag clear, CAF's original order.
        case bigEndian
    }

    /// A muxer writing to `output`, with `info` as the `info` chunk's key/value strings (none when empty).
    /// Nothing is written until the first sample.
    ///
    /// - Parameters:
    ///   - output: where the file is written; AAC needs one that can seek.
    ///   - info: key/value pairs for the `info` chunk (`title`, `artist`…), in order.
    ///   - pcmByteOrder: the byte order linear PCM is stored in (`desc` flags and data); MediaPipeline's
    ///     samples are little-endian in memory and are byte-swapped for ``ByteOrder/bigEndian``.
    ///   - reservedSpace: bytes of `free` chunk written before `data`, as afconvert leaves room for
    ///     chunks added later (0: none).
    public init(
        output: any MediaOutput,
        info: [(String, String)] = [],
        pcmByteOrder: ByteOrder = .littleEndian,
        reservedSpace: Int = 0
    ) {
        self.output = output
        self.info = info
        self.pcmByteOrder = pcmByteOrder
        self.reservedSpace = max(0, reservedSpace)
    }

    /// The name used in errors: `CAFMuxer`.
    public var name: String { "CAFMuxer" }

    /// Appends `sample`, writing the header first if it is the first sample.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/formatMismatch`` for a sample that is neither interleaved PCM nor AAC,
    ///   or whose format differs from the first; ``/MediaCore/MediaError/Code/unsupportedFormat`` for AAC to an output
    ///   that cannot seek, and for a rate or channel count CAF cannot express; ``/MediaCore/MediaError/Code/invalidData``
    ///   for a PCM sample whose byte count is not frames × frame size, an empty AAC packet, or trims
    ///   that are negative or add up to more than the packet's frames; the output's errors.
    public func write(_ sample: MediaSample) throws(MediaError) {
        let expected = "interleaved PCM (u8, s16, s24, s32, f32, f64) or AAC"
        guard let audio = sample.format.audio else {
            throw MediaError.formatMismatch(stage: name, expected: expected, actual: sample.format)
        }
        if let format {
            guard audio == format else {
                throw MediaError(
                    .formatMismatch, "\(name) started with \(format) and takes no other format, but was given \(audio)")
            }
        } else {
            try writeHeader(for: audio, expected: expected, sample: sample)
            format = audio
        }
        if isAAC {
            try appendPacket(sample)
        } else {
            try appendPCM(sample, frameBytes: audio.bytesPerFrame)
        }
    }

    private func appendPacket(_ sample: MediaSample) throws(MediaError) {
        let data = sample.data
        let frames = format?.framesPerPacket ?? 0
        guard sample.planeCount == 1, !data.isEmpty, sample.trimAtStart >= 0, sample.trimAtEnd >= 0,
            sample.trimAtStart <= frames - sample.trimAtEnd
        else {
            throw MediaError(
                .invalidData,
                "\(name) was given an AAC packet of \(count: data.count, "byte") in \(count: sample.planeCount, "plane") with trims \(sample.trimAtStart)/\(sample.trimAtEnd)"
            )
        }
        try output.write(data)
        packetSizes.append(data.count)
        maxPacketSize = max(maxPacketSize, data.count)
        primingFrames += Int64(sample.trimAtStart)
        remainderFrames += Int64(sample.trimAtEnd)
        packetsWritten += 1
        dataBytesWritten += Int64(data.count)
    }

    private func appendPCM(_ sample: MediaSample, frameBytes: Int) throws(MediaError) {
        try InterleavedPCMInput.checkByteCount(sample, frameBytes: frameBytes, stage: name)
        var data = sample.data
        if convertsU8 {
            for i in data.indices { data[i] ^= 0x80 }  // unsigned 8-bit → CAF's signed 8-bit
        }
        if swapBytes > 1 { reverseByteOrder(of: &data, width: swapBytes) }
        try output.write(data)
        packetsWritten += Int64(sample.frameCount)
        dataBytesWritten += Int64(data.count)
    }

    private func writeHeader(for audio: AudioFormat, expected: String, sample: MediaSample) throws(MediaError) {
        let channels = audio.channelCount
        guard channels >= 1, channels <= Int(UInt16.max), audio.sampleRate >= 1 else {
            throw MediaError(
                .unsupportedFormat, "CAF cannot hold \(count: channels, "channel") at \(audio.sampleRate) Hz")
        }
        var cookie: [UInt8]?
        let desc: CAFAudioDescription
        switch audio.codec {
        case .pcm(let pcm) where pcm.isInterleaved:
            let bytes = pcm.sampleType.bytesPerSample
            desc = CAFAudioDescription(
                sampleRate: Double(audio.sampleRate),
                formatID: CAFAudioDescription.linearPCM,
                formatFlags: (pcmByteOrder == .littleEndian ? CAFAudioDescription.flagIsLittleEndian : 0)
                    | (pcm.sampleType.isFloat ? CAFAudioDescription.flagIsFloat : 0),
                bytesPerPacket: UInt32(bytes * channels),
                framesPerPacket: 1,
                channelsPerFrame: UInt32(channels),
                bitsPerChannel: UInt32(bytes * 8))
            convertsU8 = pcm.sampleType == .u8
            swapBytes = pcmByteOrder == .bigEndian && bytes > 1 ? bytes : 0
        case .aac:
            guard output.isSeekable else {
                throw MediaError(
                    .unsupportedFormat,
                    "\(name) cannot write AAC to an output that cannot seek: the 'pakt' packet table and the 'data' size are written at the end"
                )
            }
            guard audio.framesPerPacket >= 1, audio.framesPerPacket <= Int(UInt32.max) else {
                throw MediaError(
                    .unsupportedFormat, "CAF cannot hold AAC with \(count: audio.framesPerPacket, "frame") per packet")
            }
            desc = CAFAudioDescription(
                sampleRate: Double(audio.sampleRate),
                formatID: CAFAudioDescription.mpeg4AAC,
                formatFlags: 0,
                bytesPerPacket: 0,
                framesPerPacket: UInt32(audio.framesPerPacket),
                channelsPerFrame: UInt32(channels),
                bitsPerChannel: 0)
            let config = try audio.audioSpecificConfig()
            cookie = CAFMagicCookie.esDescriptor(audioSpecificConfig: Self.basicAudioSpecificConfig(config))
            isAAC = true
        default:
            throw MediaError.formatMismatch(stage: name, expected: expected, actual: sample.format)
        }

        let start = output.position
        var w = ByteWriter(capacity: 256)
        w.write(CAFFile.fileType)  // mFileType
        w.writeUInt16BE(CAFFile.fileVersion)  // mFileVersion
        w.writeUInt16BE(0)  // mFileFlags
        Self.appendChunk("desc", desc.bytes, into: &w)
        let layout = audio.channelLayout
        if layout.isSpecified, layout != .mono, layout != .stereo, let bitmap = UInt32(exactly: layout.mask) {
            var chan = ByteWriter(capacity: 12)
            chan.writeUInt32BE(CAFFile.channelLayoutTagUseBitmap)  // mChannelLayoutTag
            chan.writeUInt32BE(bitmap)  // mChannelBitmap
            chan.writeUInt32BE(0)  // mNumberChannelDescriptions
            Self.appendChunk("chan", chan.bytes, into: &w)
        }
        if let cookie {
            kukiOffset = start + Int64(w.bytes.count + CAFFile.chunkHeaderSize)
            Self.appendChunk("kuki", cookie, into: &w)
        }
        if !info.isEmpty {
            var body = ByteWriter()
            body.writeUInt32BE(UInt32(truncatingIfNeeded: info.count))  // mNumEntries
            for (key, value) in info {
                body.write(Array(key.utf8))
                body.writeUInt8(0)
                body.write(Array(value.utf8))
                body.writeUInt8(0)
            }
            Self.appendChunk("info", body.bytes, into: &w)
        }
        if reservedSpace > 0 {
            Self.appendChunk("free", [UInt8](repeating: 0, count: reservedSpace), into: &w)
        }
        w.write(Array("data".utf8))  // mChunkType
        dataSizeOffset = start + Int64(w.bytes.count)
        w.writeUInt64BE(UInt64.max)  // mChunkSize: -1 while streaming, patched in finish()
        w.writeUInt32BE(0)  // mEditCount
        try output.write(w.bytes)
    }

    /// For linear PCM, writes the `data` size of the audio written so far and flushes the output, so
    /// that if the process dies before ``finish()`` the file reads up to here in every reader (the `-1`
    /// size of a streamed `data` chunk is refused by libsndfile and flagged by FFmpeg); a recorder calls
    /// it twice a second. For AAC it only flushes: without the packet table, which ``finish()`` writes,
    /// no reader can cut the packets. On an output that cannot seek it only flushes.
    public func checkpoint() throws(MediaError) {
        if let dataSizeOffset, output.isSeekable, !isAAC {
            try output.overwrite(Self.uint64BE(UInt64(dataBytesWritten + 4)), at: dataSizeOffset)
        }
        try output.flush()
    }

    /// Completes the file and closes the output. On a seekable output, patches the `data` size and, for
    /// AAC, the cookie's bitrates and appends `pakt`. Without any sample, only closes the output.
    ///
    /// - Throws: the output's errors (the output is closed even then).
    public func finish() throws(MediaError) {
        try output.close(afterWriting: { () throws(MediaError) in
            guard let dataSizeOffset, output.isSeekable else { return }
            try output.overwrite(Self.uint64BE(UInt64(dataBytesWritten + 4)), at: dataSizeOffset)  // data mChunkSize
            if isAAC, let format { try writePacketTable(format) }
        })
    }

    private func writePacketTable(_ format: AudioFormat) throws(MediaError) {
        let framesPerPacket = Int64(format.framesPerPacket)
        // Each packet's trims are within its frames (checked in write), so the sums are within the total.
        let (total, overflow) = packetsWritten.multipliedReportingOverflow(by: framesPerPacket)
        guard !overflow, primingFrames + remainderFrames <= total, primingFrames <= Int64(Int32.max),
            remainderFrames <= Int64(Int32.max)
        else {
            throw MediaError(
                .invalidData,
                "\(name) was given trims of \(primingFrames) priming and \(count: remainderFrames, "remainder frame") for \(count: total, "frame")"
            )
        }
        let table = CAFPacketTable(
            numberPackets: packetsWritten,
            numberValidFrames: total - primingFrames - remainderFrames,
            primingFrames: Int32(primingFrames),
            remainderFrames: Int32(remainderFrames),
            packetSizes: packetSizes)
        var w = ByteWriter()
        Self.appendChunk("pakt", table.bytes, into: &w)
        try output.write(w.bytes)
        if let kukiOffset, total > 0 {
            let rate = Double(format.sampleRate)
            let average = Double(dataBytesWritten) * 8 * rate / Double(total)
            let maximum = Double(maxPacketSize) * 8 * rate / Double(framesPerPacket)
            try output.overwrite(
                Self.uint32BE(Self.bitrate(maximum)), at: kukiOffset + Int64(CAFMagicCookie.maxBitrateOffset))
            try output.overwrite(
                Self.uint32BE(Self.bitrate(average)), at: kukiOffset + Int64(CAFMagicCookie.averageBitrateOffset))
        }
    }

    /// The 2-byte AudioSpecificConfig Apple writes for AAC-LC, from the format's parsed configuration,
    /// which may be FFmpeg's 5-byte extradata (with the SBR sync extension saying "no SBR"); other
    /// configurations are kept whole.
    static func basicAudioSpecificConfig(_ asc: AudioSpecificConfig) -> [UInt8] {
        // audioObjectType (5) + samplingFrequencyIndex (4) + channelConfiguration (4) + 3 GASpecificConfig flags.
        let fitsTwoBytes =
            asc.objectType < 31 && asc.samplingFrequencyIndex != nil && !asc.dependsOnCoreCoder
            && !asc.extensionFlag && asc.sbrSignal?.isPresent != true && [1, 2, 3, 4, 6, 7].contains(asc.objectType)
        return fitsTwoBytes ? Array(asc.bytes.prefix(2)) : asc.bytes
    }

    /// A bitrate in bits per second, rounded down and clamped to 32 bits.
    private static func bitrate(_ value: Double) -> UInt32 {
        guard value.isFinite, value >= 0 else { return 0 }
        return value >= Double(UInt32.max) ? UInt32.max : UInt32(value)
    }

    private static func appendChunk(_ type: String, _ body: [UInt8], into w: inout ByteWriter) {
        w.write(Array(type.utf8))  // mChunkType
        w.writeUInt64BE(UInt64(body.count))  // mChunkSize
        w.write(body)
    }

    private static func uint64BE(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }

    private static func uint32BE(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    }
}

@available(*, unavailable)
extension CAFMuxer: Sendable {}
