import MediaCore

/// The WAVE part of ``AudioFileStreamParser``: RIFF `WAVE` files, and RF64/BW64 for files over 4 GiB.
///
/// It walks the chunks from the 12-byte RIFF header on:
/// - `fmt ` gives the packets' format (see ``WAVEStreamFormat``: PCM, IEEE float, extensible, A-law,
///   µ-law, IMA ADPCM); a second one is ignored with a note.
/// - `ds64` (RF64/BW64) gives the 64-bit RIFF and data sizes and the sample count that a `data` or
///   `fact` size of 0xFFFFFFFF defers to.
/// - `fact` gives the frame count of compressed (IMA) data: the packet count when the data size is not
///   known, and the valid frames (``AudioFileStreamEvent/packetTableInfo(_:)``) when it fits the packets.
/// - `data` reveals the properties (``CBRAudioData/announce(_:layout:packetTable:into:)``'s order) and
///   then its packets, cut by ``CBRPacketBatcher``. A size of 0 or 0xFFFFFFFF (in RF64 without a
///   `ds64` size) means a stream being recorded: the audio runs to the end of the input.
/// - Every other chunk (`LIST`, `bext`, `JUNK`, `PAD `, unknown ones), before or after `data`, is
///   skipped without being held in memory, with ``AudioFileStreamDiagnostic/chunkSkipped(type:byteOffset:size:)``.
///   Odd sizes are followed by a pad byte. After the data, bytes that are no chunk header (zero padding,
///   garbage) are reported as ``AudioFileStreamDiagnostic/trailingBytesSkipped(byteOffset:count:)`` and a
///   chunk cut short as a note; neither is an error, since the audio is complete.
///
/// Seeking is exact: packet `n` is at the data offset plus `n` × `bytesPerPacket`.
///
/// Throws, with the offset of the offending structure: ``/MediaCore/MediaError/Code/truncated`` when the file ends
/// in the RIFF header, in a chunk header or chunk before the `data` chunk's header, or where the RIFF
/// size says a `data` chunk should follow; ``/MediaCore/MediaError/Code/invalidData`` for a `data` chunk before any
/// `fmt `, bytes before `data` that are no chunk header, a `ds64` shorter than its sizes, a file without
/// a `data` chunk, and what ``WAVEStreamFormat`` refuses (0 channels, 0 Hz, a bad block align);
/// ``/MediaCore/MediaError/Code/unsupportedFormat`` for formats it does not read.
struct WAVEStreamParser: SteppingFormatParser {
    /// Where the parser is in the file.
    enum Stage: Sendable, Equatable {
        /// Before the 12-byte `RIFF`/`RF64`/`BW64` … `WAVE` header.
        case riffHeader
        /// At a chunk header before the `data` chunk.
        case chunks
        /// In the audio data.
        case data
        /// At a chunk header after the audio data.
        case afterData
        /// Skipping bytes after the audio that are no chunk: `count` of them from `start` so far.
        case trailing(TrailingBytes)
        /// Everything has been said.
        case done
    }

    /// A chunk being skipped, remembered to tell a file that ends inside it from one that ends after it.
    struct SkippedChunk: Sendable {
        /// The chunk's type, for messages.
        var type: String
        /// The file offset of its header.
        var offset: Int64
        /// Its declared size (header and pad byte excluded).
        var size: Int64
    }

    /// The sizes of an RF64/BW64 `ds64` chunk.
    struct DataSizes: Sendable {
        /// The RIFF chunk's size.
        var riffSize: Int64
        /// The `data` chunk's size.
        var dataSize: Int64
        /// The number of sample frames (what `fact` would hold).
        var sampleCount: Int64
    }

    /// How many packets a batch holds.
    let batching: AudioFileStreamParser.Batching
    /// Whether only integer PCM and IEEE float are accepted: other formats are refused at the `fmt `
    /// chunk with ``WAVFormatChunk/pcmSampleType(chunkOffset:)``'s error (``WAVReader``'s contract).
    let pcmOnly: Bool
    /// Where the parser is.
    var stage = Stage.riffHeader
    /// Whether the file starts with `RF64` or `BW64`.
    var isRF64 = false
    /// The RIFF header's size field.
    var riffSize: Int64 = 0
    /// What the `ds64` chunk says, once read.
    var sizes: DataSizes?
    /// The first `fmt ` chunk's format.
    var format: WAVEStreamFormat?
    /// The first `fmt ` chunk as written, and the file offset of its header.
    var formatChunk: (chunk: WAVFormatChunk, offset: Int64)?
    /// The file offsets of the `fmt ` chunks after the first, which are ignored.
    var ignoredFormatChunks: [Int64] = []
    /// The `data` chunk header's size field as written (0 and 0xFFFFFFFF leave the size open).
    var dataSizeField: Int64?
    /// The `fact` chunk's frame count (or `ds64`'s, in RF64 when `fact` says 0xFFFFFFFF).
    var factFrames: Int64?
    /// The audio data, once its chunk header has been read.
    var audio: CBRAudioData?
    /// The chunk (or chunk remainder) being skipped.
    var skipping: SkippedChunk?

    /// A parser at the start of the file.
    init(batching: AudioFileStreamParser.Batching) { self.init(batching: batching, pcmOnly: false) }

    /// A parser at the start of the file that accepts only integer PCM and IEEE float when `pcmOnly`.
    init(batching: AudioFileStreamParser.Batching, pcmOnly: Bool) {
        self.batching = batching
        self.pcmOnly = pcmOnly
    }

    /// One step; `false` when nothing can be done until more bytes come (or ever).
    mutating func step(_ input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) throws(MediaError)
        -> Bool
    {
        switch stage {
        case .riffHeader: return try readRIFFHeader(&input)
        case .chunks, .afterData: return try readChunk(&input, into: &events)
        case .data: return emitData(&input, into: &events)
        case .trailing(var trailing):
            let stepped = trailing.step(&input, into: &events)
            stage = trailing.isDone ? .done : .trailing(trailing)
            return stepped
        case .done: return false
        }
    }

    /// Reads the 12-byte RIFF header: `RIFF`, `RF64` or `BW64`, the RIFF size, `WAVE`. A file shorter
    /// than 12 bytes that starts like one of the three is cut short, not something else.
    private mutating func readRIFFHeader(_ input: inout ByteWindow) throws(MediaError) -> Bool {
        guard input.available >= 12 || input.isFinished else { return false }
        let header = input.peek(upTo: 12)
        let magic = Array(header.prefix(4))
        let accepted = [FourCC.riff, FourCC.rf64, FourCC.bw64]
        guard accepted.contains(magic) else {
            if magic.count < 4 && accepted.contains(where: { $0.starts(with: magic) }) {
                throw MediaError.truncated("WAV RIFF header", needed: 12, available: header.count, at: 0)
            }
            throw MediaError.invalidData(
                "expected 'RIFF' at the start of a WAV file but found \(FourCC.describe(magic))", at: 0)
        }
        guard header.count == 12 else {
            throw MediaError.truncated("WAV RIFF header", needed: 12, available: header.count, at: 0)
        }
        let form = header.dropFirst(8)
        guard Array(form) == FourCC.wave else {
            throw MediaError.invalidData(
                "expected form type 'WAVE' after \(FourCC.describe(magic)) but found \(FourCC.describe(form))", at: 8)
        }
        isRF64 = magic != FourCC.riff
        riffSize = Int64(input.littleEndian(UInt32.self, at: 4))
        input.skip(12)
        stage = .chunks
        return true
    }

    /// Emits the next batch of the data; moves on to the chunks after it at its end.
    private mutating func emitData(_ input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) -> Bool {
        guard var data = audio else {
            stage = .done
            return true
        }
        audio = nil  // so that the batcher's buffer is referenced once, and reused in place
        let appended = data.emit(from: &input, into: &events)
        audio = data
        if appended { return true }
        guard data.isDone else { return false }
        if let size = data.declaredSize {
            skipping = nil  // a missing pad byte at the very end is no damage
            input.skip(size & 1)
            stage = .afterData
        } else {
            stage = .done
        }
        return true
    }

    /// Exact once the data chunk has been reached.
    func seekOffset(forPacket packet: Int64) -> AudioFileStreamSeekOffset? {
        audio?.seekOffset(forPacket: packet)
    }

    /// Continues in the data at `packet`.
    mutating func resume(atPacket packet: Int64, byteOffset: Int64) {
        guard audio != nil else { return }
        audio?.resume(atPacket: packet)
        skipping = nil
        stage = .data
    }
}
