public import MediaCore
internal import MediaFFmpeg
internal import MediaFormats

/// The file an ``AudioRecorder`` writes, chosen by the path's extension as AVAudioRecorder chooses it
/// by the URL's: `.caf`, `.m4a`, `.aac`/`.adts`, `.wav`, `.aif`/`.aiff`.
///
/// | extension | holds | a recorder killed with SIGKILL leaves |
/// | --- | --- | --- |
/// | `.caf` | linear PCM or AAC | PCM: a file that plays up to the last flush (the `data` size stays -1, "to the end", until `stop()`). AAC: a file no reader can cut into packets, because the packet table (`pakt`) is written at `stop()`; record AAC to `.aac` or `.m4a` when the process may die. |
/// | `.m4a` | AAC | a fragmented MP4 (one fragment a second) that plays up to its last complete fragment. It has no edit list, so the encoder's priming is not trimmed. |
/// | `.aac` | AAC (ADTS) | a file that plays up to the last flush: every frame carries its own header. |
/// | `.wav` | linear PCM | a file whose RIFF and `data` sizes are still 0: ffmpeg and sox read such a file to its end; strict readers refuse it. |
/// | `.aif`, `.aiff` | linear PCM | like WAV: `FORM`, `COMM` frame count and `SSND` sizes are written at `stop()`. |
///
/// The recorder flushes the file twice a second of audio, so "the last flush" is at most half a second
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
        let sink: any MediaSink = switch self {
        case .caf: CAFMuxer(output: output)
        case .adts: ADTSMuxer(output: output)
        case .wav: WAVMuxer(output: output)
        case .aiff, .m4a: AIFFMuxer(output: output)
        }
        graph.addSink(FlushingSink(sink, output: output), input: branch)
    }
}

/// A sink that flushes its file every half second of audio, so that a recording cut short by the
/// process's death loses at most that much.
struct FlushingSink: MediaSink {
    private var sink: any MediaSink
    private let output: FileOutput
    private var nextFlush = MediaTime(value: 1, timescale: 2)

    init(_ sink: any MediaSink, output: FileOutput) {
        self.sink = sink
        self.output = output
    }

    var name: String { sink.name }

    mutating func write(_ sample: MediaSample) throws {
        try sink.write(sample)
        let end = sample.timing.presentationTime + sample.timing.duration
        if end.isNumeric, end >= nextFlush {
            try output.flush()
            nextFlush = end + MediaTime(value: 1, timescale: 2)
        }
    }

    mutating func finish() throws { try sink.finish() }
}
