import MediaCore

/// The NeXT/Sun part of ``AudioFileStreamParser``: `.au` and `.snd` files.
///
/// The 24-byte big-endian header holds `.snd`, the data offset, the data size (0xFFFFFFFF: unknown, the
/// audio runs to the end of the input), the encoding, the sample rate and the channel count. The
/// annotation between the header and the data offset is skipped without being held in memory; the
/// properties follow once the data offset is reached (see ``CBRAudioData/announce(_:layout:packetTable:into:)``),
/// then the packets, cut by ``CBRPacketBatcher``. Bytes after the declared data are reported as
/// ``AudioFileStreamDiagnostic/trailingBytesSkipped(byteOffset:count:)``. Seeking is exact.
///
/// Encodings, as Core Audio maps them: 1 µ-law (`ulaw`), 27 A-law (`alaw`), 2 to 5 signed linear PCM of
/// 8, 16, 24 and 32 bits, 6 and 7 IEEE float of 32 and 64 bits (`lpcm`, big-endian, packed; the
/// big-endian flag is left out for 8 bits, as ``AudioStreamBasicDescription/linearPCM(sampleRate:channels:bits:float:bigEndian:signed8:)``
/// does). The channel layout is the channel count's default.
///
/// Throws, with the offset of the field or structure: ``/MediaCore/MediaError/Code/truncated`` when the file ends
/// in the header or the annotation; ``/MediaCore/MediaError/Code/invalidData`` for a bad magic number, a data
/// offset under 24, 0 channels or 0 Hz; ``/MediaCore/MediaError/Code/unsupportedFormat`` for other encodings
/// (G.72x ADPCM, …) and more than 65535 channels.
struct NeXTStreamParser: SteppingFormatParser {
    /// Where the parser is in the file.
    private enum Stage: Sendable {
        /// Before the 24-byte header.
        case header
        /// Skipping the annotation up to the data offset.
        case annotation(format: AudioStreamBasicDescription, dataOffset: Int64, dataSize: Int64?)
        /// In the audio data.
        case data
        /// Skipping bytes after the declared data: `count` of them from `start` so far.
        case trailing(TrailingBytes)
        /// Everything has been said.
        case done
    }

    /// The header's size, and the smallest data offset.
    static let headerSize = 24
    /// The most channels accepted: beyond it one frame would be larger than a sensible batch.
    static let maximumChannels = 65_535

    /// How many packets a batch holds.
    private let batching: AudioFileStreamParser.Batching
    /// Where the parser is.
    private var stage = Stage.header
    /// The audio data, once the header has been read and the annotation skipped.
    private var audio: CBRAudioData?

    /// A parser at the start of the file.
    init(batching: AudioFileStreamParser.Batching) { self.batching = batching }

    /// One step; `false` when nothing can be done until more bytes come (or ever).
    mutating func step(_ input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) throws(MediaError)
        -> Bool
    {
        switch stage {
        case .header:
            return try readHeader(&input)
        case .annotation(let format, let dataOffset, let dataSize):
            guard input.pendingSkip == 0 else {
                guard input.isFinished else { return false }
                let fileEnd = input.position - input.pendingSkip
                throw MediaError.truncated(
                    "NeXT/Sun annotation before the data at offset \(dataOffset)",
                    needed: Int(dataOffset) - Self.headerSize,
                    available: Int(fileEnd) - Self.headerSize, at: Int64(Self.headerSize))
            }
            let packets = dataSize.map { $0 / Int64(format.bytesPerPacket) }
            let data = CBRAudioData(
                format: format, dataOffset: dataOffset, declaredSize: dataSize, packetCount: packets, batching: batching
            )
            data.announce(format, layout: .default(channelCount: Int(format.channelsPerFrame)), into: &events)
            audio = data
            stage = .data
            return true
        case .data:
            guard var data = audio else { return false }
            audio = nil  // so that the batcher's buffer is referenced once, and reused in place
            let appended = data.emit(from: &input, into: &events)
            audio = data
            if appended { return true }
            guard data.isDone else { return false }
            stage = data.declaredSize == nil ? .done : .trailing(TrailingBytes(start: input.position))
            return true
        case .trailing(var trailing):
            let stepped = trailing.step(&input, into: &events)
            stage = trailing.isDone ? .done : .trailing(trailing)
            return stepped
        case .done:
            return false
        }
    }

    /// Reads and checks the header, then starts skipping the annotation.
    private mutating func readHeader(_ input: inout ByteWindow) throws(MediaError) -> Bool {
        guard input.available >= Self.headerSize else {
            guard input.isFinished else { return false }
            throw MediaError.truncated("NeXT/Sun header", needed: Self.headerSize, available: input.available, at: 0)
        }
        guard input.fourCC(at: 0) == ".snd" else {
            throw MediaError.invalidData(
                "expected '.snd' at the start of a NeXT/Sun file but found \(FourCC.describe(input.peek(upTo: 4)))",
                at: 0)
        }
        let dataOffset = Int64(input.bigEndian(UInt32.self, at: 4))
        let dataSize = input.bigEndian(UInt32.self, at: 8)
        let encoding = input.bigEndian(UInt32.self, at: 12)
        let rate = input.bigEndian(UInt32.self, at: 16)
        let channels = input.bigEndian(UInt32.self, at: 20)
        guard dataOffset >= Int64(Self.headerSize) else {
            throw MediaError.invalidData("NeXT/Sun data offset \(dataOffset) is inside the 24-byte header", at: 4)
        }
        guard rate > 0 else { throw MediaError.invalidData("NeXT/Sun header declares a sample rate of 0 Hz", at: 16) }
        guard channels > 0 else { throw MediaError.invalidData("NeXT/Sun header declares 0 channels", at: 20) }
        guard channels <= Self.maximumChannels else {
            throw MediaError(
                .unsupportedFormat,
                "NeXT/Sun files of \(count: channels, "channel") are not supported: at most \(Self.maximumChannels) are",
                byteOffset: 20)
        }
        let format = try Self.format(encoding: encoding, sampleRate: Double(rate), channels: Int(channels))
        input.skip(dataOffset)
        stage = .annotation(
            format: format, dataOffset: dataOffset, dataSize: dataSize == 0xFFFF_FFFF ? nil : Int64(dataSize))
        return true
    }

    /// The packets' format of an encoding.
    private static func format(encoding: UInt32, sampleRate: Double, channels: Int) throws(MediaError)
        -> AudioStreamBasicDescription
    {
        func pcm(_ bits: Int, float: Bool = false) -> AudioStreamBasicDescription {
            .linearPCM(
                sampleRate: sampleRate, channels: channels, bits: bits, float: float, bigEndian: true, signed8: true)
        }
        switch encoding {
        case 1: return .g711(AudioStreamBasicDescription.uLaw, sampleRate: sampleRate, channels: channels)
        case 2: return pcm(8)
        case 3: return pcm(16)
        case 4: return pcm(24)
        case 5: return pcm(32)
        case 6: return pcm(32, float: true)
        case 7: return pcm(64, float: true)
        case 27: return .g711(AudioStreamBasicDescription.aLaw, sampleRate: sampleRate, channels: channels)
        default:
            throw MediaError(
                .unsupportedFormat,
                "NeXT/Sun encoding \(encoding) is not supported: only 1 (µ-law), 2–5 (linear 8–32 bits), 6–7 (float) and 27 (A-law) are",
                byteOffset: 12)
        }
    }

    /// Exact once the header has been read.
    func seekOffset(forPacket packet: Int64) -> AudioFileStreamSeekOffset? {
        audio?.seekOffset(forPacket: packet)
    }

    /// Continues in the data at `packet`.
    mutating func resume(atPacket packet: Int64, byteOffset: Int64) {
        guard audio != nil else { return }
        audio?.resume(atPacket: packet)
        stage = .data
    }
}
