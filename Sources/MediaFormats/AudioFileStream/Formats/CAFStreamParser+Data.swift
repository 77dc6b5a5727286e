import MediaCore

extension CAFStreamParser {
    /// The `data` chunk's header and `mEditCount`: reports everything and starts the packets, or holds
    /// the audio until a `pakt` after it.
    mutating func dataChunk(
        _ input: inout ByteWindow, _ events: inout [AudioFileStreamEvent], offset: Int64, size: Int64
    ) throws(MediaError) -> Bool {
        try checkDataChunk(offset: offset, size: size)
        let isOpen = size == -1
        let header = CAFFile.chunkHeaderSize
        guard input.available >= header + 4 else {
            guard input.isFinished else { return false }
            throw MediaError.truncated(
                "CAF 'data' mEditCount", needed: 4, available: input.available - header, at: offset + Int64(header))
        }
        guard let desc else {
            throw MediaError.invalidData(
                "CAF file has no 'desc' chunk before its 'data' chunk", at: Int64(CAFFile.fileHeaderSize))
        }
        input.skip(Int64(header + 4))
        let found = AudioData(
            headerOffset: offset, declaredSize: size, audioStart: offset + 16, audioSize: isOpen ? nil : size - 4)
        audio = found
        skipped = SkippedChunk(
            container: "CAF", type: "data", headerOffset: offset, bodyOffset: offset + Int64(header),
            declaredSize: size, tolerance: 0)
        guard desc.format.isVariable, pakt == nil else {
            try ready(&events, fromHeld: false)
            return true
        }
        let name = "CAF '\(CAFFile.fourCCString(desc.format.desc.formatID))'"
        guard let audioSize = found.audioSize else {
            throw MediaError(
                .unsupportedFormat,
                "\(name) has packets of varying size and no 'pakt' chunk before its 'data' chunk, which runs to the end of the file: its packets cannot be found",
                byteOffset: offset)
        }
        let limit = batching.maxHeldBytes
        // For the message: the declared size may reach past 2^63.
        let (sum, beyond) = found.audioStart.addingReportingOverflow(audioSize)
        let end = beyond ? "past 2^63" : "\(sum)"
        held = try HeldAudio(size: audioSize, at: found.audioStart, limit: limit) {
            MediaError(
                .unsupportedFormat,
                "\(name) 'data' chunk at byte offset \(offset) holds \(count: audioSize, "byte") (byte offsets \(found.audioStart) to \(end)) of packets whose sizes are in a 'pakt' chunk after it; the parser holds at most \(count: limit, "byte") (Batching.maxHeldBytes) until 'pakt' arrives",
                byteOffset: offset)
        }
        phase = .holding
        return true
    }

    /// Refuses a second `data` chunk, and a size that is negative (but -1, to the end of the file) or
    /// too small for `mEditCount`.
    func checkDataChunk(offset: Int64, size: Int64) throws(MediaError) {
        if audio != nil { throw MediaError.invalidData("CAF file has a second 'data' chunk", at: offset) }
        guard size >= -1 else {
            throw MediaError.invalidData("CAF 'data' chunk declares a size of \(count: size, "byte")", at: offset)
        }
        guard size == -1 || size >= 4 else {
            throw MediaError.invalidData(
                "CAF 'data' chunk of \(count: size, "byte") cannot hold its 4-byte mEditCount", at: offset)
        }
    }

    /// Copies `data` audio whose `pakt` comes after it into ``held``.
    mutating func hold(_ input: inout ByteWindow) throws(MediaError) -> Bool {
        let count = held.take(from: &input)
        if held.isComplete {
            phase = .chunkHeader
            return true
        }
        if input.isFinished, let audio {
            throw MediaError.truncated(
                "CAF 'data' chunk (its 'pakt' chunk has not come yet)", needed: Int(clamping: audio.declaredSize),
                available: Int(clamping: input.position - audio.headerOffset - Int64(CAFFile.chunkHeaderSize)),
                at: audio.headerOffset)
        }
        return count > 0
    }

    /// The input ended at a chunk boundary or inside a chunk header.
    mutating func endOfInput(_ input: inout ByteWindow, _ events: inout [AudioFileStreamEvent]) throws(MediaError)
        -> Bool
    {
        if walk != nil { return try endOfWalk(&input) }
        if let done = endAfterAudio(&input, &events) { return done }
        if audio != nil, let desc, input.available == 0 {
            let varying = desc.format.description.bytesPerPacket == 0 ? "size" : "duration"
            throw MediaError.invalidData(
                "CAF '\(CAFFile.fourCCString(desc.format.desc.formatID))' has packets of varying \(varying) but no 'pakt' chunk",
                at: desc.offset)
        }
        let what = audio == nil ? "CAF 'data' chunk header" : "CAF chunk header"
        throw MediaError.truncated(
            what, needed: CAFFile.chunkHeaderSize, available: input.available, at: input.position)
    }

    /// Reports every property and starts the packets: from the input, or from ``held``.
    mutating func ready(_ events: inout [AudioFileStreamEvent], fromHeld: Bool) throws(MediaError) {
        guard let desc, let audio else { return }
        let format = desc.format.description
        let bytesPerPacket = Int(format.bytesPerPacket)
        let framesPerPacket = Int(format.framesPerPacket)
        var cookieBytes = cookie?.bytes ?? []
        if let cookie, format.formatID == CAFAudioDescription.mpeg4AAC {
            cookieBytes = try CAFMagicCookie.audioSpecificConfig(unwrapping: cookie.bytes, at: cookie.offset)
        }
        var tableInfo: AudioFilePacketTableInfo?
        let byteCount: Int64?
        let maximumPacketSize: Int
        var totalFrames: Int64?
        if desc.format.isVariable, let pakt {
            let table = try CAFPacketTable(
                parsing: pakt.body, hasSizes: bytesPerPacket == 0, hasFrames: framesPerPacket == 0, at: pakt.offset + 12
            )
            let totals = try table.checkedVariableTotals(
                fixedBytes: bytesPerPacket, fixedFrames: framesPerPacket, dataSize: audio.audioSize, dataIsOpen: false,
                at: pakt.offset)
            let batcher = PacketTableBatcher(
                sizes: table.packetSizes, fixedBytes: bytesPerPacket, count: table.numberPackets,
                frames: table.packetFrames,
                framesPerPacket: framesPerPacket, dataOffset: audio.audioStart, batching: batching)
            guard batcher.maximumPacketSize <= Self.packetLimit else {
                throw MediaError(
                    .unsupportedFormat,
                    "CAF 'pakt' describes a packet of \(count: batcher.maximumPacketSize, "byte"), more than the \(Self.packetLimit) a stream parser holds",
                    byteOffset: pakt.offset)
            }
            vbr = batcher
            packetCount = table.numberPackets
            tableInfo = Self.info(table)
            byteCount = totals.bytes
            totalFrames = totals.frames
            maximumPacketSize = batcher.maximumPacketSize
        } else {
            let dataPackets = audio.audioSize.map { $0 / Int64(bytesPerPacket) }
            if let pakt, !format.isLinearPCM {
                let table = try CAFPacketTable(
                    parsing: pakt.body, hasSizes: false, hasFrames: false, at: pakt.offset + 12)
                packetCount = try table.checkedConstantPacketCount(
                    dataPackets: dataPackets, framesPerPacket: framesPerPacket, at: pakt.offset)
                tableInfo = Self.info(table)
            } else {
                packetCount = dataPackets
            }
            if let count = packetCount, CAFPacketTable.product(count, Int64(bytesPerPacket)) == nil {
                throw MediaError.invalidData(
                    "CAF 'pakt' declares \(count: count, "packet") of \(count: bytesPerPacket, "byte"): more than 2^63-1 bytes",
                    at: pakt?.offset ?? audio.headerOffset)
            }
            vbr = nil
            cbr = CBRPacketBatcher(
                bytesPerPacket: bytesPerPacket, framesPerPacket: framesPerPacket, dataOffset: audio.audioStart,
                declaredSize: packetCount.map { $0 * Int64(bytesPerPacket) }, batching: batching)
            byteCount = cbr.declaredSize
            totalFrames = packetCount.flatMap { CAFPacketTable.product($0, Int64(framesPerPacket)) }
            maximumPacketSize = bytesPerPacket
        }
        events.append(.dataFormat(format))
        events.append(.channelLayout(CAFChannelLayoutChunk.layout(chan?[...], channels: Int(format.channelsPerFrame))))
        if !cookieBytes.isEmpty { events.append(.magicCookie(cookieBytes)) }
        events.append(.dataOffset(audio.audioStart))
        if let byteCount { events.append(.audioDataByteCount(byteCount)) }
        if let packetCount { events.append(.audioDataPacketCount(packetCount)) }
        if let tableInfo { events.append(.packetTableInfo(tableInfo)) }
        events.append(.maximumPacketSize(maximumPacketSize))
        // Rates, packet sizes and counts come from the file: a bit rate beyond 64 bits is not reported.
        let bitRate: Double? =
            !desc.format.isVariable
            ? format.sampleRate * Double(bytesPerPacket) * 8 / Double(framesPerPacket)
            : byteCount.flatMap { bytes in
                totalFrames.flatMap { $0 > 0 ? Double(bytes) * 8 * format.sampleRate / Double($0) : nil }
            }
        if let bitRate, bitRate.isFinite, bitRate >= 0, bitRate < 9e18 {
            events.append(.bitRate(Int(bitRate.rounded())))
        }
        events.append(.readyToProducePackets)
        isReady = true
        phase = !fromHeld ? .data : held.isDeferred ? .awaitingAudio : .heldData
    }

    private static func info(_ table: CAFPacketTable) -> AudioFilePacketTableInfo {
        AudioFilePacketTableInfo(
            primingFrames: Int64(table.primingFrames), remainderFrames: Int64(table.remainderFrames),
            validFrames: table.numberValidFrames)
    }

    /// After the last packet from the input: skips the rest of `data` (reporting bytes beyond the
    /// packets), then walks the chunks after it (after the late `pakt`, when the audio was deferred).
    mutating func finishData(_ input: inout ByteWindow, _ events: inout [AudioFileStreamEvent]) {
        isDataDone = true
        guard let audio, let audioSize = audio.audioSize else {
            phase = .trailing("after the last packet (the 'data' chunk runs to the end of the file)")
            return
        }
        if input.isFinished && input.available == 0 && input.pendingSkip == 0 {
            phase = .done  // the file ended inside the audio: the batcher has said so
            return
        }
        let used = vbr?.byteCount ?? cbr.declaredSize ?? audioSize
        let extra = max(0, audioSize - used)
        if extra > 0 { events.append(.diagnostic(.trailingBytesSkipped(byteOffset: input.position, count: extra))) }
        skip(
            &input, type: "data", offset: audio.headerOffset, size: audio.declaredSize, from: input.position,
            tolerance: extra)
        // The declared size may be anything up to 2^63-1: an end past 64 bits is past every late chunk.
        let (dataEnd, beyond) = (audio.headerOffset + Int64(CAFFile.chunkHeaderSize))
            .addingReportingOverflow(audio.declaredSize)
        if let lateChunksEnd, !beyond, lateChunksEnd > dataEnd { input.skip(lateChunksEnd - dataEnd) }
        phase = .chunkHeader
    }

    /// Exact: from the packet table's cumulative offsets, or the audio's start plus `packet` × bytes
    /// per packet; packets up to the count.
    func seekOffset(forPacket packet: Int64) -> AudioFileStreamSeekOffset? {
        guard isReady, let audio else { return nil }
        if let vbr {
            return vbr.offset(ofPacket: packet).map { AudioFileStreamSeekOffset(byteOffset: $0, isEstimated: false) }
        }
        if let packetCount, packet > packetCount { return nil }
        let (offset, overflow) = packet.multipliedReportingOverflow(by: Int64(cbr.bytesPerPacket))
        guard !overflow, offset <= Self.skipCap else { return nil }
        return AudioFileStreamSeekOffset(byteOffset: audio.audioStart + offset, isEstimated: false)
    }

    /// Continues with the packets from `packet`, read from the input (held audio is dropped). The
    /// deferred audio's first read, from packet 0, is no discontinuity.
    mutating func resume(atPacket packet: Int64, byteOffset: Int64) {
        var isFirstRead = packet == 0
        if case .awaitingAudio = phase {} else { isFirstRead = false }
        held = HeldAudio()
        if !isFirstRead {
            if vbr != nil { vbr?.resume(atPacket: packet) } else { cbr.resume(atPacket: packet) }
        }
        isDataDone = false
        skipped = nil
        phase = .data
    }
}
