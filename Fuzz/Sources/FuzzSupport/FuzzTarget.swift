import MediaBitstream
import MediaCore
import MediaFormats

/// The parsers the fuzzer drives, one case per `Fuzz<name>` executable (named as its folder under
/// `Fuzz/Sources` and its corpus under `Fuzz/Corpus`). Each executable's `LLVMFuzzerTestOneInput` is
/// ``run(_:)`` of its case; the library's test bundle compiles this file too (`MediaFuzzTargets` in the
/// root `Package.swift`), so that `FuzzCorpusReplayTests` replays every corpus through the same calls in
/// `make test` and under AddressSanitizer without a fuzzer build of its own.
public enum FuzzTarget: String, CaseIterable, Sendable {
    case adts = "ADTS"
    case adtsReader = "ADTSReader"
    case adtsStream = "ADTSStream"
    case aiffStream = "AIFFStream"
    case auStream = "AUStream"
    case avcc = "AVCC"
    case avcDecoderConfigurationRecord = "AVCDecoderConfigurationRecord"
    case annexBAccessUnits = "AnnexBAccessUnits"
    case annexBScanner = "AnnexBScanner"
    case audioSpecificConfig = "AudioSpecificConfig"
    case caf = "CAF"
    case cafStream = "CAFStream"
    case h264ParameterSets = "H264ParameterSets"
    case mp3Stream = "MP3Stream"
    case sniffedStream = "SniffedStream"
    case wav = "WAV"
    case wavStream = "WAVStream"
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
