public import MediaCore

/// A push parser for ADTS streams, like Audio File Stream Services' `AudioFileStream`: give it bytes as
/// they arrive, in chunks of any size, and take out one AAC packet per ADTS frame.
///
/// ```swift
/// var parser = ADTSParser()
/// for chunk in chunks {
///     parser.push(chunk)
///     while let packet = try parser.next() { try sink.write(packet) }
/// }
/// parser.finish()
/// while let packet = try parser.next() { try sink.write(packet) }
/// print(parser.diagnostics)
/// ```
///
/// Each packet is the raw data of one frame (without the header and CRC) with the format the header
/// describes (`AudioFormat.aac` with the AudioSpecificConfig of the header's profile, rate and channel
/// configuration as the cookie), 1024 frames, time stamps counting frames from 0 at the sample rate,
/// and ``/MediaCore/MediaSample/Flags/keyframe``. The time stamps count the frames of the packets emitted: frames
/// lost to damage are not counted, and the packet after the gap carries
/// ``/MediaCore/MediaSample/Flags/discontinuity`` instead.
///
/// A frame is returned once the first bytes after it (the next header) have arrived, or at
/// ``finish()``. The parser makes every decision only once it has the bytes the decision depends
/// on, or once ``finish()`` says no more will come. So the packets and ``diagnostics`` are the same
/// however the input is split: whole, byte by byte, or in chunks of any size.
///
/// What it does with imperfect input:
/// - It skips ID3v2 tags where a frame should start (at the start of an HLS segment, for instance).
/// - A frame is *confirmed* when the bytes right after it start another valid header of the same format
///   (ADTS repeats the fixed header in every frame), or an ID3v2 tag, or the input ends exactly there.
/// - Where a frame should start but the bytes are not a valid header, it searches forward for the first
///   confirmed frame, records ``ADTSDiagnostic/resynchronized(byteOffset:skippedBytes:)`` and flags the
///   next packet with ``/MediaCore/MediaSample/Flags/discontinuity``.
/// - A valid header whose frame is not confirmed may have a damaged `aac_frame_length`: the parser looks
///   for a confirmed frame starting inside the declared extent. If there is one, the suspect frame is
///   dropped and the parser resynchronises there (so one damaged length costs one frame, not the
///   frames it would swallow); if not, the frame is emitted and the damage is after it, but only when
///   its header is where a confirmed frame before it ended, or a confirmed frame of another format starts
///   where it ends (a format change). A header that nothing confirms (the first of the input, or the
///   first after an ID3v2 tag or after damage, with noise after it) is a sync word in noise: it is skipped
///   with the bytes around it (``ADTSDiagnostic/resynchronized(byteOffset:skippedBytes:)`` or
///   ``ADTSDiagnostic/trailingBytesSkipped(byteOffset:count:)``), so one header followed by noise is no
///   stream and ``next()`` throws. A frame whose
///   format differs from the stream's while the next header has the stream's format again is a damaged
///   header and is skipped the same way.
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
///   frame makes ``next()`` throw.
///
/// The parser keeps only the bytes it has not consumed yet (at most about two frames plus the last
/// chunk pushed: 16 KiB and a chunk, with maximum-length frames), and allocates nothing per packet
/// beyond the packet's own bytes.
public struct ADTSParser: PushParser, Sendable {
    /// What the parser expects at ``bytesConsumed``.
    private enum Mode: Sendable {
        /// A frame (or an ID3v2 tag).
        case frame
        /// A frame that is not confirmed starts here; positions before `scan` (relative to the frame)
        /// hold no confirmed frame.
        case verifying(frame: FrameKey, scan: Int)
        /// Anything: it is looking for the next valid frame, having skipped bytes since `skipStart`.
        case searching(skipStart: Int64)
    }

    /// A frame, a tag or nothing yet.
    private enum Check {
        case needMoreBytes
        case no
        case yes(Int)
    }

    /// A valid header or nothing yet.
    private enum HeaderCheck {
        case needMoreBytes
        case no
        case yes(FrameKey)
    }

    /// What the parser compares between neighbouring headers: the frame length, and the fixed-header
    /// fields that define the format (profile, sampling frequency index, channel configuration).
    private struct FrameKey {
        let length: Int
        let profile: Int
        let samplingFrequencyIndex: Int
        let channelConfiguration: Int

        init(_ header: ADTSHeader) {
            length = header.frameLength
            profile = header.profile
            samplingFrequencyIndex = header.samplingFrequencyIndex
            channelConfiguration = header.channelConfiguration
        }

        /// Whether the two headers give the same ``/MediaCore/AudioFormat`` (the MPEG version does not matter).
        func hasSameFormat(as other: FrameKey) -> Bool {
            profile == other.profile && samplingFrequencyIndex == other.samplingFrequencyIndex
                && channelConfiguration == other.channelConfiguration
        }
    }

    private var buffer: [UInt8] = []
    /// The index in `buffer` of the next byte to examine.
    private var start = 0
    /// The stream offset of `buffer[0]`.
    private var bufferOffset: Int64 = 0
    private var mode = Mode.frame
    private var inputEnd = PushInputEnd()
    /// Whether ``finish()`` has been called.
    private var isInputEnded: Bool { inputEnd.isFinished }
    /// Bytes of an ID3v2 tag still to skip, the tag's offset and its declared length.
    private var pendingTagSkip = 0
    private var pendingTag: (offset: Int64, length: Int) = (0, 0)
    private var nextIsDiscontinuity = false
    private var sawFrame = false
    /// Whether the frame at `start` is where the last frame emitted said the next one starts, that frame
    /// having been confirmed by what followed it: the header at `start` is then already confirmed.
    private var inSync = false
    /// Packets emitted so far.
    private var frameIndex = 0
    /// The start of the next packet, in frames at the current sample rate.
    private var nextStartFrame: Int64 = 0
    /// The header fields and format of the last frame emitted.
    private var current: (key: FrameKey, format: AudioFormat)?
    /// Reuses the last packet's storage once its consumer has let go: no allocation per packet.
    private var recycler = SampleRecycler()

    /// What the parser noticed and worked around so far, in order.
    public private(set) var diagnostics: [ADTSDiagnostic] = []

    /// Bytes consumed so far: the stream offset of the first byte not yet parsed.
    public var bytesConsumed: Int64 { bufferOffset + Int64(start) }

    /// The stream offset of the ADTS header of the frame behind the packet ``next()`` returned last.
    public private(set) var lastPacketByteOffset: Int64 = 0

    /// A parser at the start of a stream.
    public init() {}

    /// Adds bytes at the end of the input. Bytes given after ``finish()`` make ``next()`` throw.
    public mutating func push(_ bytes: some Collection<UInt8>) {
        guard inputEnd.accept(bytes.count) else { return }
        if start > 0 && start * 2 >= buffer.count {
            // Drop what has been consumed; memmove in place, the capacity is kept.
            if start == buffer.count {
                buffer.removeAll(keepingCapacity: true)
            } else {
                buffer.removeSubrange(0..<start)
            }
            bufferOffset += Int64(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Says that no more bytes will come, so that ``next()`` decides about the last bytes.
    public mutating func finish() {
        inputEnd.finish()
    }

    /// The next packet, or `nil` when the parser needs more bytes (or, after ``finish()``, when
    /// everything has been parsed).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidData`` after ``finish()`` when the input held no ADTS frame
    ///   at all; ``/MediaCore/MediaError/Code/invalidArgument`` when bytes were pushed after ``finish()``.
    public mutating func next() throws(MediaError) -> MediaSample? {
        try inputEnd.check("ADTSParser")
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
                        throw MediaError.invalidData(
                            "no ADTS sync word found in \(count: bytesConsumed, "byte")", at: 0)
                    }
                    return nil
                }
                switch checkID3Tag() {
                case .needMoreBytes: return nil
                case .yes(let length):
                    diagnostics.append(.id3TagSkipped(byteOffset: bytesConsumed, length: length))
                    inSync = false  // the tag confirmed the frame before it, not the header after it
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
                case .yes(let frame):
                    switch checkFollower(of: frame, at: start + frame.length) {
                    case .needMoreBytes: return nil
                    case .no: mode = .verifying(frame: frame, scan: 1)
                    case .yes:
                        let packet = takeFrame(length: frame.length)
                        inSync = true
                        if let packet { return packet }
                    }
                }
            case .verifying(let frame, let scan):
                switch verify(frame, from: scan) {
                case .needMoreBytes: return nil
                case .resynchronized, .truncated, .unconfirmed: continue
                case .trusted:
                    let packet = takeFrame(length: frame.length)
                    inSync = false  // what follows it is not a header of the stream: damage
                    if let packet { return packet }
                }
            case .searching(let skipStart):
                guard search(skipStart: skipStart) else { return nil }
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

    /// Whether a valid ADTS header starts at `index`: the frame's length and the fields that define the
    /// stream's format. Needs 7 bytes, or decides earlier when the first two already cannot start a
    /// header; at the end of the input fewer bytes are no header. Allocates nothing.
    private func checkHeader(at index: Int) -> HeaderCheck {
        let available = buffer.count - index
        guard available > 0 else { return isInputEnded ? .no : .needMoreBytes }
        guard buffer[index] == 0xFF else { return .no }
        guard available > 1 else { return isInputEnded ? .no : .needMoreBytes }
        guard buffer[index + 1] & 0xF6 == 0xF0 else { return .no }  // syncword low bits, layer 0
        guard available >= 7 else { return isInputEnded ? .no : .needMoreBytes }
        var fixed: UInt64 = 0
        for i in index..<index + 7 { fixed = fixed << 8 | UInt64(buffer[i]) }
        switch ADTSHeader.decode(fixed: fixed) {
        case .success(let header): return .yes(FrameKey(header))
        case .failure: return .no
        }
    }

    /// Whether what starts at `index` confirms the frame `frame` that ends there: a valid ADTS header of
    /// the same stream format (the fixed header is the same in every frame of a stream), an ID3v2 tag,
    /// or the end of the input.
    private func checkFollower(of frame: FrameKey, at index: Int) -> Check {
        if index >= buffer.count {
            guard isInputEnded else { return .needMoreBytes }
            return index == buffer.count ? .yes(0) : .no
        }
        guard buffer[index] == 0x49 else {  // "I"
            switch checkHeader(at: index) {
            case .needMoreBytes: return .needMoreBytes
            case .no: return .no
            case .yes(let next): return next.hasSameFormat(as: frame) ? .yes(0) : .no
            }
        }
        guard buffer.count - index >= ID3v2TagHeader.headerLength else { return isInputEnded ? .no : .needMoreBytes }
        return ID3v2TagHeader(buffer, at: index) == nil ? .no : .yes(0)
    }

    /// Whether a confirmed frame starts at `index`, with its length.
    private func checkConfirmedFrame(at index: Int) -> Check {
        switch checkHeader(at: index) {
        case .needMoreBytes: return .needMoreBytes
        case .no: return .no
        case .yes(let frame):
            switch checkFollower(of: frame, at: index + frame.length) {
            case .needMoreBytes: return .needMoreBytes
            case .no: return .no
            case .yes: return .yes(frame.length)
            }
        }
    }

    /// What ``verify(_:from:)`` decided about an unconfirmed frame.
    private enum Verdict {
        /// It needs more bytes; it remembered how far it got.
        case needMoreBytes
        /// A confirmed frame starts inside the suspect one; `start` is there now.
        case resynchronized
        /// No confirmed frame starts inside; the suspect frame is complete and is to be emitted.
        case trusted
        /// No confirmed frame starts inside, and the input ends inside the suspect frame; it was reported
        /// and consumed.
        case truncated
        /// The suspect frame is confirmed neither by what follows it nor by the frame before it (it is the
        /// first, or comes after damage): a sync word in noise. The parser now searches from its second byte.
        case unconfirmed
    }

    /// Looks for a confirmed frame inside the unconfirmed `frame` at `start`, from `scan` bytes into it.
    /// Leaves the mode `.frame` unless it needs more bytes.
    ///
    /// Without a confirmed frame inside, the suspect frame is trusted, unless its format differs from the
    /// stream's while the header after it has the stream's format: one frame of another format between
    /// two of the stream's is a damaged header, and is skipped.
    private mutating func verify(_ frame: FrameKey, from scan: Int) -> Verdict {
        let frameLength = frame.length
        var scan = scan
        while scan < frameLength && start + scan < buffer.count {
            switch checkConfirmedFrame(at: start + scan) {
            case .needMoreBytes:
                mode = .verifying(frame: frame, scan: scan)
                return .needMoreBytes
            case .no:
                scan += 1
            case .yes:
                diagnostics.append(.resynchronized(byteOffset: bytesConsumed, skippedBytes: scan))
                nextIsDiscontinuity = true
                start += scan
                mode = .frame
                return .resynchronized
            }
        }
        if scan < frameLength && !isInputEnded {
            mode = .verifying(frame: frame, scan: scan)
            return .needMoreBytes
        }
        mode = .frame
        var confirmedByNextFrame = false
        if !inSync {
            // A header of another format right after it, itself confirmed by its follower, confirms it: a
            // format change at the suspect frame's end (the first frame of an input can be the old format).
            switch checkConfirmedFrame(at: start + frameLength) {
            case .needMoreBytes:
                mode = .verifying(frame: frame, scan: scan)
                return .needMoreBytes
            case .no: break
            case .yes: confirmedByNextFrame = true
            }
        }
        guard inSync || confirmedByNextFrame else {
            // Nothing confirms this header: not a frame. Skip it as noise, reported by the search.
            mode = .searching(skipStart: bytesConsumed)
            start += 1
            return .unconfirmed
        }
        let available = buffer.count - start
        guard available >= frameLength else {
            sawFrame = true
            diagnostics.append(.truncatedFrame(byteOffset: bytesConsumed, declared: frameLength, available: available))
            start = buffer.count
            return .truncated
        }
        if let stream = current?.key, !frame.hasSameFormat(as: stream),
            case .yes(let next) = checkHeader(at: start + frameLength), next.hasSameFormat(as: stream)
        {
            diagnostics.append(.resynchronized(byteOffset: bytesConsumed, skippedBytes: frameLength))
            nextIsDiscontinuity = true
            start += frameLength
            return .resynchronized
        }
        return .trusted
    }

    /// Scans forward from `start` for a confirmed frame. Returns `true` when it found one (or reached the
    /// end of the input), so that parsing goes on; `false` when it needs more bytes. Every step consumes
    /// a byte or returns.
    private mutating func search(skipStart: Int64) -> Bool {
        while true {
            if buffer.count == start {
                guard isInputEnded else { return false }
                let skipped = Int(bytesConsumed - skipStart)
                if skipped > 0 { diagnostics.append(.trailingBytesSkipped(byteOffset: skipStart, count: skipped)) }
                mode = .frame
                return true
            }
            switch checkConfirmedFrame(at: start) {
            case .needMoreBytes:
                return false
            case .no:
                start += 1
            case .yes:
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
            diagnostics.append(
                .unsupportedFrame(byteOffset: offset, frameLength: length, rawDataBlocks: header.rawDataBlocks))
            nextIsDiscontinuity = true
            return nil
        }

        let format = format(of: header, sampleRate: sampleRate, at: offset)
        var flags: MediaSample.Flags = [.keyframe]
        if nextIsDiscontinuity { flags.insert(.discontinuity) }
        let frameCount = header.frameCount
        let payload = buffer[start + header.headerLength..<start + length]
        let packet = recycler.make(
            format: .audio(format),
            timing: .audio(startFrame: nextStartFrame, frameCount: frameCount, sampleRate: sampleRate),
            frameCount: frameCount,
            flags: flags
        ) { bytes in bytes.append(contentsOf: payload) }
        nextIsDiscontinuity = false
        nextStartFrame += Int64(frameCount)
        frameIndex += 1
        lastPacketByteOffset = offset
        return packet
    }

    /// The format of the frame with `header`, reusing the last one when the fields are the same; records
    /// a format change and carries the time stamps over to a new sample rate.
    private mutating func format(of header: ADTSHeader, sampleRate: Int, at offset: Int64) -> AudioFormat {
        let key = FrameKey(header)
        if let current, current.key.hasSameFormat(as: key) { return current.format }
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
        current = (key, format)
        return format
    }
}
