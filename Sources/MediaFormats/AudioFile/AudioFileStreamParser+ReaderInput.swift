import MediaCore

extension AudioFileStreamParser {
    /// For a reader of a file it can seek in: when the parser holds audio until a chunk the container
    /// puts after it, defers that audio and moves `input` past it (so that the late chunk is read next,
    /// and no audio is held in memory). Returns whether it did; standard input is never moved.
    mutating func hopOverHeldAudio(in input: any AudioReaderInput) throws(MediaError) -> Bool {
        guard input.size != nil, heldAudioRange != nil else { return false }
        try input.seek(to: try deferHeldAudio())
        return true
    }

    /// After ``hopOverHeldAudio(in:)`` and the late chunk's ``AudioFileStreamEvent/readyToProducePackets``:
    /// goes back to the audio's first packet, at `dataOffset`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidData`` when the parser reported no data offset.
    mutating func readDeferredAudio(from input: any AudioReaderInput, dataOffset: Int64?) throws(MediaError) {
        guard let dataOffset else {
            throw MediaError.invalidData("\(input.path): the audio's start is unknown after its late chunk")
        }
        try resume(atPacket: 0, byteOffset: dataOffset)
        try input.seek(to: dataOffset)
    }
}
