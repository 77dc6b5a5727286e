import MediaCore

/// The checks ``CAFReader`` and the CAF part of ``AudioFileStreamParser`` both make of a `pakt` chunk
/// against the `desc` and `data` chunks, so that they accept and refuse the same files.
extension CAFPacketTable {
    /// For packets of varying size or duration: the bytes and frames the table's packets hold.
    ///
    /// - Parameters:
    ///   - fixedBytes: `mBytesPerPacket` (0: the sizes are in the table).
    ///   - fixedFrames: `mFramesPerPacket` (0: the frame counts are in the table).
    ///   - dataSize: the audio bytes of `data`; `nil` when unknown (a stream whose `data` runs to the end).
    ///   - dataIsOpen: whether `data` runs to the end of the file (its size is what the file holds).
    ///   - offset: the `pakt` chunk's header offset, for errors.
    /// - Throws: ``/MediaCore/MediaError/Code/invalidData`` when the sizes add up to more than 2^63-1 or to
    ///   other than `dataSize` (more than it when open), and when valid + priming + remainder frames differ
    ///   from the packets' frames.
    func checkedVariableTotals(
        fixedBytes: Int, fixedFrames: Int, dataSize: Int64?, dataIsOpen: Bool, at offset: Int64
    ) throws(MediaError) -> (bytes: Int64, frames: Int64) {
        let bytes: Int64
        if fixedBytes == 0 {
            let sum = Self.sum(packetSizes)
            guard let sum, dataSize.map({ dataIsOpen ? sum <= $0 : sum == $0 }) ?? true else {
                throw MediaError.invalidData(
                    "CAF 'pakt' packet sizes add up to \(sum.map(String.init) ?? "more than 2^63-1") bytes but 'data' holds \(dataSize.map(String.init) ?? "an unknown number")",
                    at: offset)
            }
            bytes = sum
        } else {
            let (need, overflow) = numberPackets.multipliedReportingOverflow(by: Int64(fixedBytes))
            guard !overflow, dataSize.map({ need <= $0 }) ?? true else {
                throw MediaError.invalidData(
                    "CAF 'pakt' declares \(count: numberPackets, "packet") of \(count: fixedBytes, "byte") but 'data' holds \(dataSize.map(String.init) ?? "an unknown number")",
                    at: offset)
            }
            bytes = need
        }
        let frames = fixedFrames == 0 ? Self.sum(packetFrames) : Self.product(numberPackets, Int64(fixedFrames))
        guard let frames, declaredFrames == frames else {
            throw MediaError.invalidData(
                "CAF 'pakt' says \(numberValidFrames) valid + \(primingFrames) priming + \(count: remainderFrames, "remainder frame") but its \(count: numberPackets, "packet") hold \(frames.map(String.init) ?? "more than 2^63-1")",
                at: offset)
        }
        return (bytes, frames)
    }

    /// For packets of constant size and duration: how many packets the stream has, `nil` when neither
    /// the table nor the data says (a stream whose `data` runs to the end and `mNumberPackets` 0).
    ///
    /// `mNumberPackets` of 0 with frames given is how Apple's writers (afconvert's IMA4) describe
    /// constant-size packets: the data holds the packets, and valid + priming + remainder frames must
    /// not exceed theirs. Otherwise `mNumberPackets` is the count, which the data must hold and whose
    /// frames valid + priming + remainder must equal.
    ///
    /// - Parameters:
    ///   - dataPackets: the whole packets in `data`; `nil` when unknown.
    ///   - framesPerPacket: `mFramesPerPacket`.
    ///   - offset: the `pakt` chunk's header offset, for errors.
    /// - Throws: ``/MediaCore/MediaError/Code/invalidData`` when the counts disagree.
    func checkedConstantPacketCount(dataPackets: Int64?, framesPerPacket: Int, at offset: Int64) throws(MediaError)
        -> Int64?
    {
        let count = numberPackets == 0 ? dataPackets : numberPackets
        guard let count else { return nil }
        let frames = Self.product(count, Int64(framesPerPacket))
        let agrees: Bool
        if numberPackets == 0 {
            agrees = frames.flatMap { frames in declaredFrames.map { $0 <= frames } } ?? false
        } else {
            agrees = (dataPackets.map { numberPackets <= $0 } ?? true) && frames != nil && declaredFrames == frames
        }
        guard agrees else {
            throw MediaError.invalidData(
                "CAF 'pakt' counts (\(count: numberPackets, "packet"), \(count: numberValidFrames, "valid frame")) disagree with 'data' of \(dataPackets.map(String.init) ?? "an unknown number of") packets of \(count: framesPerPacket, "frame")",
                at: offset)
        }
        return count
    }

    /// valid + priming + remainder, or `nil` when it exceeds `Int64.max`.
    var declaredFrames: Int64? { Self.sum([Int(numberValidFrames), Int(primingFrames), Int(remainderFrames)]) }

    /// The sum of `values`, or `nil` when it exceeds `Int64.max`.
    static func sum(_ values: [Int]) -> Int64? {
        var total: Int64 = 0
        for value in values {
            let (next, overflow) = total.addingReportingOverflow(Int64(value))
            guard !overflow else { return nil }
            total = next
        }
        return total
    }

    /// `a × b`, or `nil` when it exceeds `Int64.max`.
    static func product(_ a: Int64, _ b: Int64) -> Int64? {
        let (result, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? nil : result
    }
}
