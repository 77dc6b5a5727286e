public import MediaCore

/// What `afinfo` prints about an audio file, found by parsing all of it once with
/// ``AudioFileStreamParser``: the file's properties plus exact counts of its packets, frames and bytes.
///
/// ```swift
/// let summary = try AudioFileSummary(path: "song.mp3")
/// print(summary.properties.fileType, summary.packets, summary.durationSeconds)   // MP3 130 3.0
/// ```
///
/// Counting is pure parsing (no decoding, no allocation per packet), a few GB/s on a file in the page
/// cache. Where the file states a count the summary keeps both: ``properties`` has what it says,
/// ``packets`` what is there, and ``validFrames`` follows the packets when the two disagree (with a
/// diagnostic naming the header's claim).
public struct AudioFileSummary: Sendable {
    /// What the file says.
    public private(set) var properties = AudioFileProperties()
    /// The packets found (for linear PCM, frames).
    public private(set) var packets: Int64 = 0
    /// The frames those packets decode to, priming and remainder included (for MP3, with a last frame cut
    /// short, which FFmpeg's decoder still decodes).
    public private(set) var totalFrames: Int64 = 0
    /// The bytes of audio data in the file: the count the file states, else from the first packet to
    /// the end of the last one (ADTS headers included).
    public var dataBytes: Int64 {
        if let stated = properties.dataByteCount { return stated }
        guard let first = firstPacketOffset else { return 0 }
        return lastPacketEnd - first
    }
    /// What the parser skipped or worked around, in file order.
    public private(set) var diagnostics: [AudioFileStreamDiagnostic] = []
    /// The largest packet found.
    public private(set) var largestPacket = 0
    private var firstPacketOffset: Int64?
    /// Whether the last thing found was a packet cut short by the end of the file.
    private var endsInCutPacket = false
    /// Whether the packet table's count differs from the packets' (``checkStatedCount()``).
    private var statedCountDisagrees = false
    private var lastPacketEnd: Int64 = 0

    /// Parses the whole file at `path` (`-`: standard input).
    ///
    /// - Throws: the parser's errors, with byte offsets; ``/MediaCore/MediaError/Code/io`` for a file
    ///   that cannot be read.
    public init(path: String) throws(MediaError) {
        let input = try FileInput(path: path)
        // see AudioFileReader
        var parser = AudioFileStreamParser(batching: .init(maxHeldBytes: input.size ?? (64 << 20)))
        var chunk = [UInt8](repeating: 0, count: 1 << 18)
        var ended = false
        var deferred = false  // audio before a late chunk is read after it (see AudioFileReader)
        while !ended {
            let read = chunk.withUnsafeMutableBytes { raw in
                Result { () throws(MediaError) in try input.read(into: raw) }
            }
            let n = try read.get()
            if n == 0 {
                parser.finish()
            } else {
                chunk.withUnsafeBytes { parser.push(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            }
            ended = n == 0
            while let event = try parser.next() {
                take(event)
                if case .readyToProducePackets = event, deferred {
                    try parser.readDeferredAudio(from: input, dataOffset: properties.dataOffset)
                    ended = false
                }
            }
            if !ended, try parser.hopOverHeldAudio(in: input) { deferred = true }
        }
        guard properties.isReadyToProducePackets else {
            throw MediaError.truncated("\(path): the audio file's header", needed: 1, available: 0, at: input.position)
        }
        checkStatedCount()
    }

    /// Parses the file in `bytes`.
    public init(bytes: [UInt8]) throws(MediaError) {
        var parser = AudioFileStreamParser(batching: .init(maxHeldBytes: Int64(bytes.count)))
        parser.push(bytes)
        parser.finish()
        while let event = try parser.next() { take(event) }
        guard properties.isReadyToProducePackets else {
            throw MediaError.truncated("the audio file's header", needed: 1, available: 0, at: Int64(bytes.count))
        }
        checkStatedCount()
    }

    /// Compares the frames the file's packet table states (priming, valid and remainder) with those its
    /// packets hold. When they differ, the packets win, as they do in FFmpeg's decode: a file cut short
    /// (or a header that claims too many) has no remainder at its end, so its valid frames are what is
    /// there after the priming; a file with more packets than stated has its priming trimmed and plays
    /// the rest, the stated remainder included (FFmpeg 5.1 cuts nothing there either: measured on two
    /// MP3s joined, the first one's LAME tag counting its own frames). Either way a ``AudioFileStreamDiagnostic/frameCountDisagrees(claimedFrames:foundFrames:byteOffset:)``
    /// says what the header claimed.
    private mutating func checkStatedCount() {
        // FFmpeg's MP3 decoder decodes a last frame cut short, concealing what is missing (its AAC decoder
        // refuses one), so that frame's samples count, as in ffmpeg's decode; ``packets`` counts whole ones.
        if endsInCutPacket, properties.fileType == .mp3, let perPacket = properties.dataFormat?.framesPerPacket {
            totalFrames += Int64(perPacket)
        }
        guard let table = properties.packetTableInfo, table.validFrames >= 0 else { return }
        let (sum, overflow1) = table.primingFrames.addingReportingOverflow(table.validFrames)
        let (claimed, overflow2) = sum.addingReportingOverflow(table.remainderFrames)
        let claimedFrames = overflow1 || overflow2 ? Int64.max : claimed
        guard claimedFrames != totalFrames else { return }
        diagnostics.append(
            .frameCountDisagrees(claimedFrames: claimedFrames, foundFrames: totalFrames, byteOffset: lastPacketEnd))
        statedCountDisagrees = true
    }

    private mutating func take(_ event: AudioFileStreamEvent) {
        switch event {
        case .packets(let batch):
            endsInCutPacket = false
            packets += Int64(batch.packetCount)
            // A count from the file (packets × frames per packet): it saturates rather than trap.
            let (sum, overflow) = totalFrames.addingReportingOverflow(batch.frameCount)
            totalFrames = overflow ? .max : sum
            if firstPacketOffset == nil { firstPacketOffset = batch.fileOffset }
            lastPacketEnd = batch.fileOffset + batch.fileByteCount
            if batch.descriptions.isEmpty {
                if batch.packetCount > 0 { largestPacket = max(largestPacket, batch.bytes.count / batch.packetCount) }
            } else {
                for description in batch.descriptions { largestPacket = max(largestPacket, description.dataByteSize) }
            }
        case .diagnostic(let diagnostic):
            diagnostics.append(diagnostic)
            if case .truncatedPacket = diagnostic { endsInCutPacket = true }
        default:
            properties.take(event)
        }
    }

    /// The encoder's priming frames, when the file says.
    public var primingFrames: Int64 { properties.packetTableInfo?.primingFrames ?? 0 }
    /// The padding after the last valid frame, when the file says; 0 when its packets disagree with its
    /// stated count: a file cut short has lost the end that held the padding, and one holding more
    /// packets plays them all after the priming, as FFmpeg decodes it.
    public var remainderFrames: Int64 {
        statedCountDisagrees ? 0 : properties.packetTableInfo?.remainderFrames ?? 0
    }
    /// The frames of audio: what the file's packet table says when its packets agree, else every frame
    /// found minus priming and remainder (a disagreement is in ``diagnostics``).
    public var validFrames: Int64 {
        if !statedCountDisagrees, let valid = properties.packetTableInfo?.validFrames, valid >= 0 { return valid }
        return max(0, totalFrames - primingFrames - remainderFrames)
    }
    /// ``validFrames`` in seconds.
    public var durationSeconds: Double {
        guard let rate = properties.dataFormat?.sampleRate, rate > 0 else { return 0 }
        return Double(validFrames) / rate
    }
    /// The bit rate the file states, else the data's bytes over its duration, in bits per second.
    public var bitRate: Int {
        if let stated = properties.bitRate { return stated }
        guard durationSeconds > 0 else { return 0 }
        return Int((Double(dataBytes) * 8 / durationSeconds).rounded())
    }
}
