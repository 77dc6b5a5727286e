import MediaBitstream
public import MediaCore

/// Turns the payloads of FLV audio and video tags (RTMP's audio and video messages, or an FLV file's
/// tags) into ``/MediaCore/MediaSample``s: AAC and H.264, as FFmpeg's `flv` demuxer reads them.
///
/// ```swift
/// var reader = FLVSampleReader()
/// if let sample = try reader.video(message.payload, timestamp: message.timestamp, at: message.byteOffset) { … }
/// ```
///
/// The contract:
/// - A sequence header (AAC's AudioSpecificConfig, H.264's `avcC`) gives no sample: it sets the format of
///   the samples after it (``audioFormat``, ``videoFormat``). A coded frame before its sequence header
///   throws ``/MediaCore/MediaError/Code/invalidData``.
/// - AAC packets: 1,024 frames each (960 when the configuration says so), presentation time the tag's
///   milliseconds, timescale 1,000. H.264 frames: AVCC with 4-byte lengths (other length sizes of the
///   `avcC` are rewritten to 4), decode time the tag's milliseconds, presentation time that plus the
///   composition offset, ``/MediaCore/MediaSample/Flags/keyframe`` on FLV's key frames. An H.264
///   end-of-sequence tag gives no sample.
/// - Timestamps are RTMP's 32-bit milliseconds extended to 64 bits: a wrap after about 49.7 days goes on
///   counting, and a step back of less than 2^31 ms stays a step back.
/// - Other codecs throw ``/MediaCore/MediaError/Code/unsupportedFormat`` naming the FLV codec.
/// - Errors carry `offset`, the position of the tag (message) in the connection or file.
public struct FLVSampleReader: Sendable {
    /// The format of the audio samples, once an AAC sequence header has come.
    public private(set) var audioFormat: AudioFormat?
    /// The format of the video samples, once an H.264 sequence header has come.
    public private(set) var videoFormat: VideoFormat?
    private var lengthSize = 4
    private var lastAudio: (raw: UInt32, extended: Int64)?
    private var lastVideo: (raw: UInt32, extended: Int64)?

    /// A reader that has seen no sequence header yet.
    public init() {}

    /// The sample of an audio tag's payload, or `nil` for a sequence header (or an empty payload).
    public mutating func audio(_ payload: [UInt8], timestamp: UInt32, at offset: Int64 = 0) throws(MediaError)
        -> MediaSample?
    {
        guard let first = payload.first else { return nil }
        let soundFormat = first >> 4
        guard soundFormat == 10 else {
            let names: [UInt8: String] = [
                0: "linear PCM", 1: "ADPCM", 2: "MP3", 3: "linear PCM (little-endian)", 4: "Nellymoser 16 kHz",
                5: "Nellymoser 8 kHz", 6: "Nellymoser", 7: "G.711 A-law", 8: "G.711 µ-law", 11: "Speex", 14: "MP3 8 kHz"
            ]
            throw MediaError(
                .unsupportedFormat,
                "FLV audio in \(names[soundFormat] ?? "sound format \(soundFormat)"): only AAC is read",
                byteOffset: offset)
        }
        guard payload.count >= 2 else { throw MediaError.truncated("FLV AAC tag", needed: 2, available: 1, at: offset) }
        let body = Array(payload[2...])
        if payload[1] == 0 {
            let config = try AudioSpecificConfig(parsing: body)
            audioFormat = config.audioFormat
            return nil
        }
        guard let format = audioFormat else {
            throw MediaError.invalidData("FLV AAC frame before its sequence header (AudioSpecificConfig)", at: offset)
        }
        let milliseconds = Self.extend(timestamp, &lastAudio)
        let timing = SampleTiming(
            presentationTime: MediaTime(value: milliseconds, timescale: 1_000),
            duration: MediaTime(value: Int64(format.framesPerPacket), timescale: Int32(clamping: format.sampleRate)))
        return MediaSample(
            format: .audio(format), data: body, timing: timing, frameCount: format.framesPerPacket, flags: [.keyframe])
    }

    /// The sample of a video tag's payload, or `nil` for a sequence header, an end of sequence or an
    /// empty payload.
    public mutating func video(_ payload: [UInt8], timestamp: UInt32, at offset: Int64 = 0) throws(MediaError)
        -> MediaSample?
    {
        guard let first = payload.first else { return nil }
        let frameType = first >> 4
        let codec = first & 0x0F
        guard codec == 7 else {
            let names: [UInt8: String] = [
                2: "Sorenson H.263", 3: "Screen video", 4: "VP6", 5: "VP6 with alpha", 6: "Screen video 2"
            ]
            throw MediaError(
                .unsupportedFormat, "FLV video in \(names[codec] ?? "codec \(codec)"): only H.264 (AVC) is read",
                byteOffset: offset)
        }
        if frameType == 5 { return nil }  // video info/command frame: no picture
        guard payload.count >= 5 else {
            throw MediaError.truncated("FLV AVC tag header", needed: 5, available: payload.count, at: offset)
        }
        let raw = UInt32(payload[2]) << 16 | UInt32(payload[3]) << 8 | UInt32(payload[4])
        let composition = Int64(Int32(bitPattern: raw << 8) >> 8)  // signed 24 bits
        let body = Array(payload[5...])
        switch payload[1] {
        case 0:
            let record = try AVCDecoderConfigurationRecord(parsing: body, baseOffset: offset + 5)
            lengthSize = Int(record.lengthSizeMinusOne) + 1
            let sps = record.sequenceParameterSets.first.flatMap { try? H264SPS(parsing: $0) }
            videoFormat = VideoFormat.h264(
                width: sps?.width ?? 0, height: sps?.height ?? 0,
                parameters: H264Parameters(
                    sequenceParameterSets: record.sequenceParameterSets,
                    pictureParameterSets: record.pictureParameterSets))
            return nil
        case 1:
            guard let format = videoFormat else {
                throw MediaError.invalidData("FLV H.264 frame before its sequence header (avcC)", at: offset)
            }
            let decode = Self.extend(timestamp, &lastVideo)
            let data = lengthSize == 4 ? body : try Self.fourByteLengths(body, from: lengthSize, at: offset + 5)
            let timing = SampleTiming(
                presentationTime: MediaTime(value: decode + composition, timescale: 1_000),
                decodeTime: MediaTime(value: decode, timescale: 1_000), duration: .invalid)
            return MediaSample(
                format: .video(format), data: data, timing: timing, frameCount: 1,
                flags: frameType == 1 ? [.keyframe] : [])
        case 2:
            return nil
        default:
            throw MediaError.invalidData("FLV AVC packet type \(payload[1]) (0 to 2 exist)", at: offset + 1)
        }
    }

    /// `timestamp` after `last`, extended to 64 bits: the 32-bit difference, taken as signed, added.
    private static func extend(_ timestamp: UInt32, _ last: inout (raw: UInt32, extended: Int64)?) -> Int64 {
        let value = last.map { $0.extended + Int64(Int32(bitPattern: timestamp &- $0.raw)) } ?? Int64(timestamp)
        last = (timestamp, value)
        return value
    }

    /// NAL units with `size`-byte lengths rewritten with 4-byte lengths.
    private static func fourByteLengths(_ bytes: [UInt8], from size: Int, at offset: Int64) throws(MediaError)
        -> [UInt8]
    {
        var reader = ByteReader(bytes, baseOffset: offset)
        var writer = ByteWriter(capacity: bytes.count + bytes.count / 8)
        while !reader.isAtEnd {
            var length = 0
            for _ in 0..<size { length = length << 8 | Int(try reader.readUInt8("NAL unit length")) }
            writer.writeUInt32BE(UInt32(length))
            writer.write(try reader.readBytes(length, "NAL unit"))
        }
        return writer.bytes
    }
}
