import MediaBitstream
import MediaCore
import MediaFFmpeg
import MediaFormats

/// The parsers the fuzzer drives, one case per `Fuzz<name>` executable (named as its folder under
/// `Fuzz/Sources` and its corpus under `Fuzz/Corpus`). Each executable's `LLVMFuzzerTestOneInput` is
/// ``run(_:)`` of its case; the library's test bundle compiles this file too (`MediaFuzzTargets` in the
/// root `Package.swift`), so that `FuzzCorpusReplayTests` replays every corpus through the same calls in
/// `make test` and under AddressSanitizer without a fuzzer build of its own.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// `ADTSHeader(parsing:)`, and `ADTSParser` pushed the input in pieces.
    case adts = "ADTS"
    /// `ADTSReader` over the input, every sample.
    case adtsReader = "ADTSReader"
    /// `AudioFileStreamParser` hinted ADTS, in pieces.
    case adtsStream = "ADTSStream"
    /// `AudioFileStreamParser` hinted AIFF/AIFC, in pieces.
    case aiffStream = "AIFFStream"
    /// `AudioFileStreamParser` hinted NeXT/Sun, in pieces.
    case auStream = "AUStream"
    /// `AMF0Value.decodeAll` with tight limits, and the values encoded again and decoded.
    case amf0 = "AMF0"
    /// `AVCCParser` and `avccToAnnexB` with the length size the first byte chooses.
    case avcc = "AVCC"
    /// `AVCDecoderConfigurationRecord(parsing:)` (avcC).
    case avcDecoderConfigurationRecord = "AVCDecoderConfigurationRecord"
    /// `AnnexBAccessUnitParser` in pieces, and `AnnexBReader`.
    case annexBAccessUnits = "AnnexBAccessUnits"
    /// `AnnexBScanner` in pieces, its `split`, and the Annex-B conversions of `H264Bitstream`.
    case annexBScanner = "AnnexBScanner"
    /// `AudioSpecificConfig(parsing:)`, its description, and the ADTS header made from it.
    case audioSpecificConfig = "AudioSpecificConfig"
    /// `CAFReader` over the input, every sample.
    case caf = "CAF"
    /// `ContainerDemuxer(bytes:)`: libavformat's probe and open of the input, the explanation of a failed
    /// open (it walks an MP4's top-level boxes), then every packet of every stream it can hand out.
    case containerOpen = "ContainerOpen"
    /// `AudioFileStreamParser` hinted CAF, in pieces.
    case cafStream = "CAFStream"
    /// The H.264 NAL header, SPS and PPS parsers, and emulation-prevention removal.
    case h264ParameterSets = "H264ParameterSets"
    /// `AudioFileStreamParser` hinted MP3 (frames, Xing/LAME, ID3), in pieces.
    case mp3Stream = "MP3Stream"
    /// `RTMPChunkParser` in pieces, each command and data message through `AMF0Value`, each audio and
    /// video message through `FLVSampleReader`: what the ingest server does with a connection's bytes.
    case rtmpChunks = "RTMPChunks"
    /// `AudioFileStreamParser` with no hint: type sniffing, then any of the others, in pieces.
    case sniffedStream = "SniffedStream"
    /// `WAVReader` over the input (WAV, RF64, extensible), every sample.
    case wav = "WAV"
    /// `AudioFileStreamParser` hinted WAVE, in pieces.
    case wavStream = "WAVStream"
    /// `Y4MStreamHeader`, `Y4MParser` in pieces, and `Y4MReader`.
    case y4m = "Y4M"

    /// Feeds `bytes` to this target's parsers the way a user calls them, reading every output, and
    /// ignores the `MediaError`s they throw: a crash, a sanitizer report or a hang is what fails.
    public func run(_ bytes: [UInt8]) {
        switch self {
        case .adts:
            // ADTSHeader(parsing:) on the input, and ADTSParser fed it in pieces.
            _ = try? ADTSHeader(parsing: bytes)
            var parser = ADTSParser()
            fuzzPush(&parser, bytes)
        case .adtsReader: fuzzDrain(ADTSReader(bytes: bytes))
        case .adtsStream: fuzzAudioFileStream(bytes, hint: .adts)
        case .aiffStream: fuzzAudioFileStream(bytes, hint: .aiff)
        case .auStream: fuzzAudioFileStream(bytes, hint: .next)
        case .amf0:
            var limits = AMF0Value.Limits()
            limits.depth = 8
            limits.values = 512
            if let values = try? AMF0Value.decodeAll(bytes, limits: limits) {
                _ = values.description
                _ = try? AMF0Value.decodeAll(AMF0Value.encode(values), limits: limits)
            }
        case .rtmpChunks:
            var limits = RTMPChunkParser.Limits()
            limits.messageLength = 1 << 16
            limits.partialBytes = 1 << 18
            var parser = RTMPChunkParser(limits: limits)
            var reader = FLVSampleReader()
            fuzzPush(&parser, bytes) { message in
                switch message.type {
                case .commandAMF0, .dataAMF0: _ = try? AMF0Value.decodeAll(message.payload)
                case .audio: _ = try? reader.audio(message.payload, timestamp: message.timestamp)
                case .video: _ = try? reader.video(message.payload, timestamp: message.timestamp)
                default: break
                }
            }
        case .avcc:
            // The first byte chooses the length size; the rest is one AVCC sample.
            let lengthSize = [1, 2, 4][Int(bytes.first ?? 0) % 3]
            let sample = Array(bytes.dropFirst())
            if var parser = try? AVCCParser(lengthSize: lengthSize) {
                _ = try? parser.all(in: sample)
            }
            _ = try? H264Bitstream.avccToAnnexB(sample, lengthSize: lengthSize)
        case .avcDecoderConfigurationRecord: _ = try? AVCDecoderConfigurationRecord(parsing: bytes)
        case .annexBAccessUnits:
            // The push parser in pieces, and the reader with a read size the first byte chooses.
            var parser = AnnexBAccessUnitParser()
            fuzzPush(&parser, bytes)
            fuzzDrain(AnnexBReader(bytes: bytes, readSize: 1 + Int(bytes.first ?? 0)))
        case .annexBScanner:
            var scanner = AnnexBScanner()
            fuzzPush(&scanner, bytes)
            _ = try? AnnexBScanner.split(bytes)
            _ = H264Bitstream.annexBNALUnits(bytes)
            _ = try? H264Bitstream.annexBToAVCC(bytes)
        case .audioSpecificConfig:
            if let config = try? AudioSpecificConfig(parsing: bytes) {
                _ = config.description
                _ = try? ADTSHeader(audioSpecificConfig: config, payloadLength: bytes.count)
            }
        case .caf:
            // The last byte chooses how many frames a sample holds.
            if let reader = try? CAFReader(bytes: bytes, framesPerSample: 1 + Int(bytes.last ?? 0) * 16) {
                fuzzDrain(reader)
            }
        case .cafStream: fuzzAudioFileStream(bytes, hint: .caf)
        case .containerOpen: fuzzContainer(bytes)
        case .h264ParameterSets:
            _ = try? H264NALHeader(parsing: bytes)
            _ = try? H264SPS(parsing: bytes)
            _ = try? H264PPS(parsing: bytes)
            _ = H264RBSP.removeEmulationPrevention(bytes)
            _ = H264Bitstream.parameterSets(in: [bytes])
        case .mp3Stream: fuzzAudioFileStream(bytes, hint: .mp3)
        case .sniffedStream: fuzzAudioFileStream(bytes, hint: nil)
        case .wav:
            if let reader = try? WAVReader(bytes: bytes, framesPerSample: 1 + Int(bytes.last ?? 0) * 16) {
                fuzzDrain(reader)
            }
        case .wavStream: fuzzAudioFileStream(bytes, hint: .wave)
        case .y4m:
            // The stream header up to the first newline, the push parser in pieces, and the reader.
            if let newline = bytes.firstIndex(of: 0x0A) {
                _ = try? Y4MStreamHeader(parsing: bytes[..<newline])
            }
            var parser = Y4MParser()
            fuzzPush(&parser, bytes)
            if let reader = try? Y4MReader(bytes: bytes) {
                fuzzDrain(reader)
            }
        }
    }
}

/// Opens `bytes` as a container and reads every packet of every stream with a format, at most 10,000
/// (libavformat's own loops bound the rest), stopping at the first error.
func fuzzContainer(_ bytes: [UInt8]) {
    guard let demuxer = try? ContainerDemuxer(bytes: bytes) else { return }
    var sources: [ContainerDemuxer.StreamSource] = []
    for stream in demuxer.streams where stream.format != nil {
        if let source = try? demuxer.source(stream: stream.index) { sources.append(source) }
    }
    withExtendedLifetime(sources) {
        var packets = 0
        while packets < 10_000, (try? demuxer.nextSample()) != nil { packets += 1 }
    }
}
