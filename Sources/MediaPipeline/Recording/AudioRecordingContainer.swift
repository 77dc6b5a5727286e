import MediaCore
internal import MediaFFmpeg
internal import MediaFormats

/// The file an ``AudioRecorder`` writes, chosen by the path's extension as AVAudioRecorder chooses it
/// by the URL's: `.caf`, `.m4a`, `.aac`/`.adts`, `.wav`, `.aif`/`.aiff`.
///
/// | extension | holds | a recorder killed with SIGKILL leaves |
/// | --- | --- | --- |
/// | `.caf` | linear PCM or AAC | PCM: a file that plays up to the last checkpoint (the `data` size is rewritten at each). AAC: a file no reader can cut into packets, because the packet table (`pakt`) is written at `stop()`; record AAC to `.aac` or `.m4a` when the process may die. |
/// | `.m4a` | AAC | a fragmented MP4 (one fragment a second) that plays up to its last complete fragment. It has no edit list, so the encoder's priming is not trimmed. |
/// | `.aac` | AAC (ADTS) | a file that plays up to the last flush: every frame carries its own header. |
/// | `.wav` | linear PCM | a file that plays up to the last checkpoint: the RIFF and `data` sizes are rewritten at each. |
/// | `.aif`, `.aiff` | linear PCM | likewise: the `FORM` and `SSND` sizes and the `COMM` frame count are rewritten at each. |
///
/// The recorder flushes the file (and for PCM CAF, WAV and AIFF rewrites its sizes: ``/MediaFormats/WAVMuxer/checkpoint()``)
/// every half second of audio, so "the last flush" or "the last checkpoint" is at most half a second
/// before the kill.
public enum AudioRecordingContainer: String, Sendable, Hashable, CaseIterable {
    /// Core Audio Format.
    case caf
    /// MPEG-4 audio (fragmented).
    case m4a
    /// ADTS AAC.
    case adts
    /// RIFF WAVE.
    case wav
    /// AIFF (AIFF-C for float).
    case aiff

    /// The container `path`'s extension names, `nil` for an unknown one.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "caf": self = .caf
        case "m4a": self = .m4a
        case "aac", "adts": self = .adts
        case "wav": self = .wav
        case "aif", "aiff", "aifc": self = .aiff
        default: return nil
        }
    }

    /// Whether the container stores `format`.
    public func holds(_ format: AudioRecorderSettings.Format) -> Bool {
        switch self {
        case .caf: true
        case .m4a, .adts: format == .aac
        case .wav, .aiff: format == .linearPCM
        }
    }

    /// Adds the sink that writes `path` to `graph`, fed by `branch`.
    func addSink(to graph: inout MediaGraph, path: String, input branch: MediaGraph.BranchID) throws(MediaError) {
        if self == .m4a {
            var options = ContainerMuxer.Options()
            options.fragmented = true
            graph.addSink(try ContainerMuxer(path: path, format: .m4a, options: options), tracks: [branch])
            return
        }
        let output = try FileOutput(path: path)
        switch self {
        case .caf:
            let muxer = CAFMuxer(output: output)
            graph.addSink(CheckpointingSink(muxer, checkpoint: muxer.checkpoint), input: branch)
        case .adts: graph.addSink(CheckpointingSink(ADTSMuxer(output: output), checkpoint: output.flush), input: branch)
        case .wav:
            let muxer = WAVMuxer(output: output)
            graph.addSink(CheckpointingSink(muxer, checkpoint: muxer.checkpoint), input: branch)
        case .aiff, .m4a:
            let muxer = AIFFMuxer(output: output)
            graph.addSink(CheckpointingSink(muxer, checkpoint: muxer.checkpoint), input: branch)
        }
    }
}

/// A sink that makes its file readable up to here every half second of audio (flushing it, and for
/// WAV and AIFF writing the sizes so far into the header), so that a recording cut short by the
/// process's death loses at most that much.
struct CheckpointingSink: MediaSink {
    private var sink: any MediaSink
    private let checkpoint: () throws(MediaError) -> Void
    private var next = MediaTime(value: 1, timescale: 2)

    init(_ sink: any MediaSink, checkpoint: @escaping () throws(MediaError) -> Void) {
        self.sink = sink
        self.checkpoint = checkpoint
    }

    var name: String { sink.name }

    mutating func write(_ sample: MediaSample) throws {
        try sink.write(sample)
        let end = sample.timing.presentationTime + sample.timing.duration
        if end.isNumeric, end >= next {
            try checkpoint()
            next = end + MediaTime(value: 1, timescale: 2)
        }
    }

    mutating func finish() throws { try sink.finish() }
}
