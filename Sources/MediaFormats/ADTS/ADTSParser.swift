public import MediaCore

/// A push parser for ADTS streams, like Audio File Stream Services' `AudioFileStream`: give it bytes as
/// they arrive, in chunks of any size, and take out one AAC packet per ADTS frame.
///
/// ```swift
/// var parser = ADTSParser()
/// for chunk in chunks {
///     parser.append(chunk)
///     while let packet = try parser.nextPacket() { try sink.write(packet) }
/// }
/// parser.endOfInput()
/// while let packet = try parser.nextPacket() { try sink.write(packet) }
/// print(parser.diagnostics)
/// ```
///
/// Each packet is the raw data of one frame (without the header and CRC) with the format the header
/// describes (`AudioFormat.aac` with the AudioSpecificConfig of the header's profile, rate and channel
/// configuration as the cookie), 1024 frames, time stamps counting frames from 0 at the sample rate,
/// and ``MediaSample/Flags/keyframe``.
///
/// The parser makes every decision only once it has the bytes the decision depends on, or once
/// ``endOfInput()`` says no more will come. So the packets and ``diagnostics`` are the same however the
/// input is split: whole, byte by byte, or in chunks of any size.
///
/// What it does with imperfect input:
/// - It skips ID3v2 tags where a frame should start (at the start of an HLS segment, for instance).
/// - Where a frame should start but the bytes are not a valid header, it searches forward for a
///   position where a valid header starts and the frame after it starts with a valid header too (or the
///   input ends exactly after it), records ``ADTSDiagnostic/resynchronized(byteOffset:skippedBytes:)``
///   and flags the next packet with ``MediaSample/Flags/discontinuity``.
/// - A frame whose format differs from the one before gives a packet with the new format and
///   ``ADTSDiagnostic/formatChanged(frameIndex:byteOffset:from:to:)``; time stamps continue at the new
///   rate.
/// - A header with channel configuration 0 (the channels are given by a `program_config_element()`
///   inside the raw data, which this parser does not read) gives a format with an unspecified layout of
///   0 channels and a cookie without that element.
/// - A frame with several raw data blocks and no CRC is one packet of 1024 frames per block; with CRCs
///   it is skipped (``ADTSDiagnostic/unsupportedFrame(byteOffset:frameLength:rawDataBlocks:)``).
/// - At the end of the input, a frame that is cut off is not emitted
///   (``ADTSDiagnostic/truncatedFrame(byteOffset:declared:available:)``) and bytes that hold no frame
///   are reported (``ADTSDiagnostic/trailingBytesSkipped(byteOffset:count:)``). Input without any ADTS
///   frame makes ``nextPacket()`` throw.
///
/// The parser keeps only the bytes it has not consumed yet (at most about two frames plus the last
/// chunk appended), and allocates nothing per packet beyond the packet's own bytes.
public struct ADTSParser: Sendable {
    /// What the parser expects at ``bytesConsumed``.
    private enum Mode: Sendable {
        /// A frame (or an ID3v2 tag).
        case frame
        /// Anything: it is looking for the next valid frame, having skipped bytes since `skipStart`.
        case searching(skipStart: Int64)
    }

    /// A frame, a tag or nothing yet.
    private enum Check {
        case needMoreBytes
        case no
        case yes(Int)
    }

    private var buffer: [UInt8] = []
    /// The index in `buffer` of the next byte to examine.
    private var start = 0
    /// The stream offset of `buffer[0]`.
    private var bufferOffset: Int64 = 0
    private var mode = Mode.frame
    private var isInputEnded = false
    private var bytesAfterEnd = 0
    /// Bytes of an ID3v2 tag still to skip, the tag's offset and its declared length.
    private var pendingTagSkip = 0
    private var pendingTag: (offset: Int64, length: Int) = (0, 0)
    private var nextIsDiscontinuity = false
    private var sawFrame = false
    /// Packets emitted so far.
    private var frameIndex = 0
    /// The start of the next packet, in frames at the current sample rate.
    private var nextStartFrame: Int64 = 0
    /// The format of the last frame, and the header fields it comes from.
    private var current: (profile: Int, samplingFrequencyIndex: Int, channelConfiguration: Int, format: AudioFormat)?

    /// What the parser noticed and worked around so far, in order.
    public private(set) var diagnostics: [ADTSDiagnostic] = []

    /// Bytes consumed so far: the stream offset of the first byte not yet parsed.
    public var bytesConsumed: Int64 { bufferOffset + Int64(start) }

    /// A parser at the start of a stream.
    public init() {}

    /// Adds bytes at the end of the input. Bytes given after ``endOfInput()`` make ``nextPacket()`` throw.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        guard !isInputEnded else {
            bytesAfterEnd += bytes.count
            return
        }
        if start > 0 && start * 2 >= buffer.count {
            // Drop what has been consumed; memmove in place, the capacity is kept.
            if start == buffer.count { buffer.removeAll(keepingCapacity: true) } else { buffer.removeSubrange(0..<start) }
            bufferOffset += Int64(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Says that no more bytes will come, so that ``nextPacket()`` decides about the last bytes.
    public mutating func endOfInput() {
        isInputEnded = true
    }

    /// The next packet, or `nil` when the parser needs more bytes (or, after ``endOfInput()``, when
    /// everything has been parsed).
    ///
    /// - Throws: ``MediaError/Code/invalidData`` after ``endOfInput()`` when the input held no ADTS frame
    ///   at all; ``MediaError/Code/invalidArgument`` when bytes were appended after ``endOfInput()``.
    public mutating func nextPacket() throws(MediaError) -> MediaSample? {
        guard bytesAfterEnd == 0 else {
            throw MediaError(.invalidArgument, "ADTSParser was given \(bytesAfterEnd) bytes after endOfInput()")
        }
        while true {
            if pendingTagSkip > 0 {
                let n = min(pendingTagSkip, buffer.count - start)
                start += n
                pendingTagSkip -= n
                if pendingTagSkip > 0 {
                    guard isInputEnded else { return nil }
                    diagnostics.append(
                        .truncatedID3Tag(
                            byteOffset: pendingTag.offset, declared: pendingTag.length,
                            available: pendingTag.length - pendingTagSkip))
                    pendingTagSkip = 0
                }
            }
            switch mode {
            case .frame:
                if buffer.count == start {
                    guard isInputEnded else { return nil }
                    guard sawFrame else {
                        throw MediaError.invalidData("no ADTS sync word found in \(bytesConsumed) bytes", at: 0)
                    }
                    return nil
                }
                switch checkID3Tag() {
                case .needMoreBytes: return nil
                case .yes(let length):
                    diagnostics.append(.id3TagSkipped(byteOffset: bytesConsumed, length: length))
                    pendingTag = (bytesConsumed, length)
                    pendingTagSkip = length
                    continue
                case .no: break
                }
                switch checkHeader(at: start) {
                case .needMoreBytes:
                    return nil
                case .no:
                    mode = .searching(skipStart: bytesConsumed)
                case .yes(let frameLength):
                    let available = buffer.count - start
                    if available < frameLength {
                        guard isInputEnded else { return nil }
                        sawFrame = true
                        diagnostics.append(
                            .truncatedFrame(byteOffset: bytesConsumed, declared: frameLength, available: available))
                        start = buffer.count
                        continue
                    }
                    if let packet = takeFrame(length: frameLength) { return packet }
                }
            case .searching(let skipStart):
                guard try search(skipStart: skipStart) else { return nil }
            }
        }
    }

    // MARK: - Decisions

    /// Whether an ID3v2 tag starts at `start`, with its length.
    private func checkID3Tag() -> Check {
        guard buffer[start] == 0x49 else { return .no }  // "I"
        guard buffer.count - start >= ID3v2TagHeader.headerLength else { return isInputEnded ? .no : .needMoreBytes }
        guard let tag = ID3v2TagHeader(buffer, at: start) else { return .no }
        return .yes(tag.totalLength)
    }

    /// Whether a valid ADTS header starts at `index`, with the frame's length. Needs 7 bytes, or decides
    /// earlier when the first two already cannot start a header; at the end of the input fewer bytes
    /// are no header.
    private func checkHeader(at index: Int) -> Check {
        let available = buffer.count - index
        guard available > 0 else { return isInputEnded ? .no : .needMoreBytes }
        guard buffer[index] == 0xFF else { return .no }
        guard available > 1 else { return isInputEnded ? .no : .needMoreBytes }
        guard buffer[index + 1] & 0xF6 == 0xF0 else { return .no }  // syncword low bits, layer 0
        guard available >= 7 else { return isInputEnded ? .no : .needMoreBytes }
        var fixed: UInt64 = 0
        for i in index..<index + 7 { fixed = fixed << 8 | UInt64(buffer[i]) }
        switch ADTSHeader.decode(fixed: fixed) {
        case .success(let header): return .yes(header.frameLength)
        case .failure: return .no
        }
    }

    /// Scans forward from `start` for a frame that is confirmed by the next one. Returns `true` when it
    /// found one (or reached the end of the input), so that parsing goes on; `false` when it needs more
    /// bytes. Every step consumes a byte or returns.
    private mutating func search(skipStart: Int64) throws(MediaError) -> Bool {
        while true {
            if buffer.count == start {
                guard isInputEnded else { return false }
                let skipped = Int(bytesConsumed - skipStart)
                if skipped > 0 { diagnostics.append(.trailingBytesSkipped(byteOffset: skipStart, count: skipped)) }
                mode = .frame
                return true
            }
            switch checkHeader(at: start) {
            case .needMoreBytes:
                return false
            case .no:
                start += 1
            case .yes(let frameLength):
                let available = buffer.count - start
                let confirmed: Bool
                if available >= frameLength + 7 {
                    if case .yes = checkHeader(at: start + frameLength) { confirmed = true } else { confirmed = false }
                } else if isInputEnded {
                    confirmed = available == frameLength
                } else {
                    return false
                }
                guard confirmed else {
                    start += 1
                    continue
                }
                diagnostics.append(.resynchronized(byteOffset: skipStart, skippedBytes: Int(bytesConsumed - skipStart)))
                nextIsDiscontinuity = true
                mode = .frame
                return true
            }
        }
    }

    // MARK: - Packets

    /// Turns the complete frame of `length` bytes at `start` into a packet and consumes it; `nil` when
    /// the frame is skipped.
    private mutating func takeFrame(length: Int) -> MediaSample? {
        let offset = bytesConsumed
        guard let header = try? ADTSHeader(parsing: buffer[start..<start + length], at: offset),
            let sampleRate = header.sampleRate
        else {
            // checkHeader accepted these bytes, so this does not happen; skip a byte to make progress.
            start += 1
            mode = .searching(skipStart: offset)
            return nil
        }
        sawFrame = true
        defer { start += length }
        if !header.protectionAbsent && header.rawDataBlocks > 0 {
            diagnostics.append(.unsupportedFrame(byteOffset: offset, frameLength: length, rawDataBlocks: header.rawDataBlocks))
            nextIsDiscontinuity = true
            return nil
        }

        let format = format(of: header, sampleRate: sampleRate, at: offset)
        var flags: MediaSample.Flags = [.keyframe]
        if nextIsDiscontinuity { flags.insert(.discontinuity) }
        let frameCount = header.frameCount
        let packet = MediaSample(
            format: .audio(format),
            data: Array(buffer[start + header.headerLength..<start + length]),
            timing: .audio(startFrame: nextStartFrame, frameCount: frameCount, sampleRate: sampleRate),
            frameCount: frameCount,
            flags: flags)
        nextIsDiscontinuity = false
        nextStartFrame += Int64(frameCount)
        frameIndex += 1
        return packet
    }

    /// The format of the frame with `header`, reusing the last one when the fields are the same; records
    /// a format change and carries the time stamps over to a new sample rate.
    private mutating func format(of header: ADTSHeader, sampleRate: Int, at offset: Int64) -> AudioFormat {
        if let current, current.profile == header.profile,
            current.samplingFrequencyIndex == header.samplingFrequencyIndex,
            current.channelConfiguration == header.channelConfiguration
        {
            return current.format
        }
        let config = AudioSpecificConfig(
            objectType: header.objectType, samplingFrequencyIndex: header.samplingFrequencyIndex,
            sampleRate: sampleRate, channelConfiguration: header.channelConfiguration)
        let format = config.audioFormat
        if let previous = current?.format {
            diagnostics.append(.formatChanged(frameIndex: frameIndex, byteOffset: offset, from: previous, to: format))
            if previous.sampleRate != sampleRate {
                let time = MediaTime(value: nextStartFrame, timescale: Int32(clamping: previous.sampleRate))
                    .converted(to: Int32(clamping: sampleRate), rounding: .toNearestOrAwayFromZero)
                if time.isNumeric { nextStartFrame = time.value }
            }
        }
        current = (header.profile, header.samplingFrequencyIndex, header.channelConfiguration, format)
        return format
    }
}
