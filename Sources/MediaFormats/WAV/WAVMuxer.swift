public import MediaCore

/// Writes interleaved PCM samples as a WAV file, like `AVAudioFile` writing linear PCM.
///
/// ```swift
/// let muxer = CheckedSink(WAVMuxer(output: try FileOutput(path: "tone.wav")))
/// var tone = try ToneGenerator(length: .duration(MediaTime(value: 5, timescale: 1)))
/// while let sample = try tone.next() { try muxer.write(sample) }
/// try muxer.finish()
/// ```
///
/// The header is written when the first sample arrives, from its format, and is the one FFmpeg's WAV
/// muxer writes (`ffmpeg -fflags +bitexact`), byte for byte:
/// - `WAVE_FORMAT_PCM` (integer) or `WAVE_FORMAT_IEEE_FLOAT` with a 16-byte `fmt ` chunk (the canonical
///   44-byte header for u8 and s16 mono or stereo), unless
/// - the stream has more than 2 channels, more than 16 bits per sample (s24, s32, f32, f64), a rate above
///   48 kHz, or a 1- or 2-channel layout other than mono or stereo: then `WAVE_FORMAT_EXTENSIBLE`, with the
///   channel layout's mask as `dwChannelMask` (0 when the layout is unspecified).
/// - Float formats get a `fact` chunk with the frame count when the output is seekable.
///
/// While streaming, the RIFF and `data` sizes are `0xFFFFFFFF` (unknown), which FFmpeg and ``WAVReader``
/// read to the end of the file. ``finish()`` patches them on a seekable output (and adds the pad byte
/// after odd-sized data); on a non-seekable one (a pipe) they stay open. Data beyond the 4 GiB that
/// 32-bit sizes can express also leaves them open.
///
/// Every sample must have the first one's format: interleaved PCM of type u8, s16, s24, s32, f32 or
/// f64. Planar PCM, compressed audio and a format change throw ``/MediaCore/MediaError/Code/formatMismatch``. After
/// ``write(_:)`` throws, ``finish()`` still completes the file with what was written (what ``/MediaCore/Pipeline``
/// relies on). When no sample arrived, ``finish()`` closes the output without writing anything: there
/// is no format to write a header for.
///
/// The driver keeps the life cycle (no write after an error or after ``finish()``, `finish` once) and
/// stamps the errors with the stage's name and the sample's index; to call the muxer by hand, wrap it
/// in a ``/MediaCore/CheckedSink``, which does the same.
///
/// The muxer is a class because it drives one output: copies of a value would interleave their bytes.
/// It is not thread-safe; hand it to one task at a time.
public final class WAVMuxer: MediaSink {
    private let output: any MediaOutput
    private var layout: Layout?
    /// The format of the first sample; every later one must match it.
    public private(set) var format: AudioFormat?
    /// The number of frames written so far.
    public private(set) var framesWritten: Int64 = 0
    /// The number of audio data bytes written so far.
    public private(set) var dataBytesWritten: Int64 = 0

    /// Where the header's fields are, to patch them at the end.
    private struct Layout {
        var riffSizeOffset: Int64
        var headerSize: Int64
        var dataSizeOffset: Int64
        var factValueOffset: Int64?
    }

    /// A value RIFF uses for "size unknown".
    private static let openSize: UInt32 = 0xFFFF_FFFF

    /// A muxer writing to `output`. Nothing is written until the first sample.
    public init(output: any MediaOutput) {
        self.output = output
    }

    /// Appends the frames of `sample`, writing the header first if this is the first sample.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/formatMismatch`` for a sample that is not interleaved PCM of a supported
    ///   type or whose format differs from the first sample's; ``/MediaCore/MediaError/Code/unsupportedFormat`` for a
    ///   rate, channel count or frame size WAV cannot express; ``/MediaCore/MediaError/Code/invalidData`` when the
    ///   sample's byte count is not its frame count times the frame size; and the output's errors.
    public func write(_ sample: MediaSample) throws(MediaError) {
        let (audio, sampleType) = try InterleavedPCMInput.check(sample, stage: name, established: format)
        let data = sample.data
        if format == nil {
            let chunk = try Self.formatChunk(for: audio, type: sampleType)
            try writeHeader(chunk)
            format = audio
        }
        try output.write(data)
        dataBytesWritten += Int64(data.count)
        framesWritten += Int64(sample.frameCount)
    }

    /// Completes the file and closes the output: pads odd-sized data and patches the RIFF, `fact` and
    /// `data` sizes when the output is seekable. Without any sample, only closes the output.
    ///
    /// - Throws: the output's errors (the output is closed even then).
    public func finish() throws(MediaError) {
        try output.close(afterWriting: { () throws(MediaError) in
            if let layout, output.isSeekable { try patchSizes(layout) }
        })
    }

    /// Writes the sizes of the audio written so far into the header and flushes the output, so that if
    /// the process dies before ``finish()`` the file reads up to here (a recorder calls it twice a
    /// second). On an output that cannot seek it only flushes.
    public func checkpoint() throws(MediaError) {
        if let layout, output.isSeekable { try writeSizes(layout, pad: 0) }  // the pad byte comes at finish()
        try output.flush()
    }

    private func patchSizes(_ layout: Layout) throws(MediaError) {
        let pad: Int64 = dataBytesWritten & 1
        if pad == 1 { try output.write([0]) }
        try writeSizes(layout, pad: pad)
    }

    /// Writes the RIFF, `data` and `fact` fields for the audio written so far (and `pad` bytes after it).
    private func writeSizes(_ layout: Layout, pad: Int64) throws(MediaError) {
        let riffSize = layout.headerSize - 8 + dataBytesWritten + pad
        // Past 4 GiB the 32-bit fields cannot hold the sizes: leave them open, which readers read to the end.
        guard riffSize <= Int64(UInt32.max) - 1 else { return }
        try output.overwrite(Self.uint32LE(UInt32(riffSize)), at: layout.riffSizeOffset)  // RIFF ckSize
        try output.overwrite(Self.uint32LE(UInt32(dataBytesWritten)), at: layout.dataSizeOffset)  // data ckSize
        if let factValueOffset = layout.factValueOffset {
            let frames = UInt32(clamping: framesWritten)
            try output.overwrite(Self.uint32LE(frames), at: factValueOffset)  // fact dwSampleLength
        }
    }

    private func writeHeader(_ chunk: WAVFormatChunk) throws(MediaError) {
        let start = output.position
        let writesFact = chunk.codecTag == WAVFormatChunk.ieeeFloatTag && output.isSeekable
        var writer = ByteWriter(capacity: 80)
        writer.write(FourCC.riff)
        writer.writeUInt32LE(Self.openSize)  // ckSize, patched in finish()
        writer.write(FourCC.wave)
        writer.write(chunk.serialized())
        var factValueOffset: Int64?
        if writesFact {
            writer.write(FourCC.fact)
            writer.writeUInt32LE(4)  // ckSize
            factValueOffset = start + Int64(writer.bytes.count)
            writer.writeUInt32LE(0)  // dwSampleLength, patched in finish()
        }
        writer.write(FourCC.data)
        let dataSizeOffset = start + Int64(writer.bytes.count)
        writer.writeUInt32LE(Self.openSize)  // ckSize, patched in finish()
        try output.write(writer.bytes)
        layout = Layout(
            riffSizeOffset: start + 4, headerSize: Int64(writer.bytes.count), dataSizeOffset: dataSizeOffset,
            factValueOffset: factValueOffset)
    }

    /// The `fmt ` chunk FFmpeg's `ff_put_wav_header` writes for `format`.
    static func formatChunk(for format: AudioFormat, type: PCMSampleType) throws(MediaError) -> WAVFormatChunk {
        let channels = format.channelCount
        let blockAlign = channels * type.bytesPerSample
        guard channels >= 1, channels <= Int(UInt16.max), blockAlign <= Int(UInt16.max) else {
            throw MediaError(
                .unsupportedFormat,
                "WAV cannot hold \(count: channels, "channel") of \(count: type.bytesPerSample, "byte")")
        }
        let (byteRate, overflow) = format.sampleRate.multipliedReportingOverflow(by: blockAlign)
        guard format.sampleRate >= 1, !overflow, byteRate <= Int(UInt32.max) else {
            throw MediaError(
                .unsupportedFormat,
                "WAV cannot hold a sample rate of \(format.sampleRate) Hz with \(blockAlign)-byte frames")
        }
        let tag = type.isFloat ? WAVFormatChunk.ieeeFloatTag : WAVFormatChunk.pcmTag
        let bits = type.bytesPerSample * 8
        let layout = format.channelLayout
        let plainLayout = !layout.isSpecified || layout == .default(channelCount: channels)
        let extensible = channels > 2 || bits > 16 || format.sampleRate > 48_000 || !plainLayout
        return WAVFormatChunk(
            formatTag: extensible ? WAVFormatChunk.extensibleTag : tag,
            channelCount: channels,
            sampleRate: format.sampleRate,
            byteRate: byteRate,
            blockAlign: blockAlign,
            bitsPerSample: bits,
            validBitsPerSample: bits,
            // dwChannelMask holds the 18 positions of WAV's speaker bits; a wider mask cannot be written.
            channelMask: extensible ? UInt32(exactly: layout.mask) ?? 0 : 0,
            subFormatTag: extensible ? tag : nil)
    }

    private static func uint32LE(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}

@available(*, unavailable)
extension WAVMuxer: Sendable {}
