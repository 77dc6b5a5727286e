import MediaCore

extension AIFFStreamParser {
    /// Reports the audio's properties and starts handing out packets, once `COMM` and `SSND` are both
    /// known: from the input, or from ``held`` when `SSND` came first.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidData`` when `numSampleFrames` needs more bytes than
    ///   `SSND` declares (and, for IMA4, even read as a frame count).
    mutating func startData(_ events: inout [AudioFileStreamEvent], fromHeld: Bool) throws(MediaError) {
        guard let comm, let sound else { return }
        let format = comm.chunk.format
        let bytesPerPacket = Int64(format.bytesPerPacket)
        let declared = Int64(comm.chunk.numSampleFrames)
        var count: Int64? = declared
        var tableInfo: AudioFilePacketTableInfo?
        if let audioSize = sound.audioSize, declared * bytesPerPacket > audioSize {
            let packets = (declared + 63) / 64
            guard comm.chunk.framesMayCountSamples, packets * bytesPerPacket <= audioSize else {
                throw MediaError.invalidData(
                    "AIFF 'COMM' numSampleFrames of \(declared) needs \(count: declared * bytesPerPacket, "byte") but the 'SSND' chunk at byte offset \(sound.headerOffset) holds \(audioSize)",
                    at: comm.offset + 10)
            }
            events.append(
                .diagnostic(
                    .note(
                        "The IMA4 'COMM' numSampleFrames of \(declared) is read as a frame count (\(count: packets, "packet") of 64 frames): the 'SSND' chunk cannot hold \(count: declared, "packet")",
                        byteOffset: comm.offset + 10)))
            count = packets
            tableInfo = AudioFilePacketTableInfo(
                primingFrames: 0, remainderFrames: packets * 64 - declared, validFrames: declared)
        } else if sound.audioSize == nil, declared == 0 {
            count = nil
        }
        packetCount = count
        batcher = CBRPacketBatcher(
            bytesPerPacket: Int(bytesPerPacket), framesPerPacket: Int(format.framesPerPacket),
            dataOffset: sound.audioStart,
            declaredSize: count.map { $0 * bytesPerPacket }, batching: batching)
        events.append(.dataOffset(sound.audioStart))
        if let count {
            events.append(.audioDataByteCount(count * bytesPerPacket))
            events.append(.audioDataPacketCount(count))
        }
        if let tableInfo { events.append(.packetTableInfo(tableInfo)) }
        events.append(.maximumPacketSize(Int(bytesPerPacket)))
        events.append(
            .bitRate(Int((format.sampleRate * Double(bytesPerPacket) * 8 / Double(format.framesPerPacket)).rounded())))
        events.append(.readyToProducePackets)
        isReady = true
        phase = !fromHeld ? .data : held.isDeferred ? .awaitingAudio : .heldData
    }

    /// After the last packet from the input: skips the rest of `SSND` (reporting audio bytes beyond
    /// the packet count) and its pad byte, then walks the chunks after it.
    mutating func finishData(_ input: inout ByteWindow, _ events: inout [AudioFileStreamEvent]) {
        isDataDone = true
        guard let sound, let audioSize = sound.audioSize else {
            phase = .trailing(
                "after the \(count: packetCount ?? 0, "packet") 'COMM' declares (the 'SSND' chunk runs to the end of the file)"
            )
            return
        }
        if input.isFinished && input.available == 0 && input.pendingSkip == 0 {
            phase = .done  // the file ended inside the audio: the batcher has said so
            return
        }
        let extra = max(0, audioSize - (batcher.declaredSize ?? audioSize))
        if extra > 0 { events.append(.diagnostic(.trailingBytesSkipped(byteOffset: input.position, count: extra))) }
        let pad = sound.declaredSize & 1
        input.skip(extra + pad)
        let soundEnd = sound.headerOffset + 8 + sound.declaredSize + pad
        if let lateChunksEnd, lateChunksEnd > soundEnd { input.skip(lateChunksEnd - soundEnd) }
        skipped = SkippedChunk(
            container: "AIFF", type: "SSND", headerOffset: sound.headerOffset, bodyOffset: sound.headerOffset + 8,
            declaredSize: sound.declaredSize, tolerance: extra + pad)
        phase = .chunkHeader
    }

    /// Exact: the audio's start plus `packet` × bytes per packet, for packets up to the count.
    func seekOffset(forPacket packet: Int64) -> AudioFileStreamSeekOffset? {
        guard isReady, let comm, let sound else { return nil }
        if let packetCount, packet > packetCount { return nil }
        let (offset, overflow) = packet.multipliedReportingOverflow(by: Int64(comm.chunk.format.bytesPerPacket))
        guard !overflow, offset <= Int64.max - sound.audioStart else { return nil }
        return AudioFileStreamSeekOffset(byteOffset: sound.audioStart + offset, isEstimated: false)
    }

    /// Continues with the packets from `packet`, read from the input (the held audio is dropped). The
    /// deferred audio's first read, from packet 0, is no discontinuity.
    mutating func resume(atPacket packet: Int64, byteOffset: Int64) {
        var isFirstRead = packet == 0
        if case .awaitingAudio = phase {} else { isFirstRead = false }
        held = HeldAudio()
        if !isFirstRead { batcher.resume(atPacket: packet) }
        isDataDone = false
        skipped = nil
        phase = .data
    }
}
