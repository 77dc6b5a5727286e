import ArgumentParser
import ExampleSupport
import MediaPipeline

/// What an `--output` is written as.
enum MixOutput: Equatable {
    /// The audio mix itself.
    case wav
    /// The video mix itself.
    case y4m
    /// Encoded into a container file.
    case container(ContainerFormat)
    /// AAC in ADTS.
    case adts
    /// H.264 in Annex B.
    case annexB
    /// Encoded and sent to a stream URL (FLV over RTMP, MPEG-TS otherwise).
    case stream

    init?(path: String) {
        if path.contains("://") {
            guard (try? StreamingURL(path)) != nil else { return nil }
            self = .stream
            return
        }
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "wav": self = .wav
        case "y4m": self = .y4m
        case "aac": self = .adts
        case "h264", "264": self = .annexB
        default:
            guard let container = ContainerFormat(fileExtension: ext) else { return nil }
            self = .container(container)
        }
    }

    var isEncoded: Bool { self != .wav && self != .y4m }
    var takesAudioOnly: Bool { self == .wav || self == .adts || self == .container(.m4a) }
    var takesVideoOnly: Bool { self == .y4m || self == .annexB }

    /// Adds the sink for an encoded output, fed by the encoded `video` and `audio` branches it takes.
    func addSink(path: String, to graph: inout MediaGraph, video: MediaGraph.BranchID?, audio: MediaGraph.BranchID?)
        throws
    {
        switch self {
        case .adts:
            guard let audio else { throw ValidationError("\(path) needs an --audio input") }
            graph.addSink(ADTSMuxer(output: try FileOutput(path: path)), input: audio)
        case .annexB:
            guard let video else { throw ValidationError("\(path) needs a --video input") }
            graph.addSink(AnnexBMuxer(output: try FileOutput(path: path)), input: video)
        case .container(let format):
            let tracks = format == .m4a ? [audio].compactMap { $0 } : [video, audio].compactMap { $0 }
            graph.addSink(try ContainerMuxer(path: path, format: format), tracks: tracks)
        case .stream:
            graph.addSink(try ContainerMuxer(url: path), tracks: [video, audio].compactMap { $0 })
        case .wav, .y4m:
            break
        }
    }
}

/// A stage that writes each sample to a file (through its own stages first) and passes it on unchanged:
/// how one mix is both written as it is (`.wav`, `.y4m`) and encoded.
final class WritingTap: MediaStage {
    private let stages: MediaBin
    private var sink: any MediaSink
    let name: String

    private init(name: String, stages: [any MediaStage], sink: any MediaSink) {
        self.name = name
        self.stages = MediaBin(name, stages: stages)
        self.sink = sink
    }

    /// The audio mix into a WAV file: 32-bit float, or 16-bit.
    static func wav(path: String, bits: Int) throws -> WritingTap {
        WritingTap(
            name: "WAV \(path)", stages: bits == 16 ? [try AudioConverter(format: PCMFormat(.s16))] : [],
            sink: WAVMuxer(output: try FileOutput(path: path)))
    }

    /// The video mix into a Y4M file.
    static func y4m(path: String) throws -> WritingTap {
        WritingTap(name: "Y4M \(path)", stages: [], sink: Y4MMuxer(output: try FileOutput(path: path)))
    }

    /// The WAV sink (a branch's last output, when nothing is encoded after it).
    static func wavSink(path: String, bits: Int) throws -> any MediaSink {
        let tap = try wav(path: path, bits: bits)
        return TapSink(tap: tap)
    }

    func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        try stages.process(sample) { try sink.write($0) }
        try emit(sample)
    }

    func finish(into emit: (MediaSample) throws -> Void) throws {
        try stages.finish { try sink.write($0) }
        try sink.finish()
    }
}

/// A ``WritingTap`` as a sink: it writes, and nothing comes after it.
private struct TapSink: MediaSink {
    let tap: WritingTap
    var name: String { tap.name }
    func write(_ sample: MediaSample) throws { try tap.process(sample) { _ in } }
    func finish() throws { try tap.finish { _ in } }
}
