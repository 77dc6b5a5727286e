import ExampleSupport
import MediaPipeline

#if canImport(Glibc)
    import Glibc
#endif

extension AACEncoderCommand {
    /// Whether this run encodes segments in parallel: as `--parallel`/`--no-parallel` say, otherwise when
    /// the input is a regular WAV file long enough to gain (`ParallelAACEncoder.isWorthwhile`), nothing
    /// is converted first, and `--threads` was not asked for.
    func usesParallel(input: String) throws -> Bool {
        if let parallel { return parallel }
        guard input != "-", sampleRate == nil, channels == nil, !threads, Self.isRegularFile(input) else {
            return false
        }
        return ParallelAACEncoder.isWorthwhile(frameCount: try WAVReader(path: input).frameCount)
    }

    /// WAV file → ParallelAACEncoder (one WAVReader per segment, each on its worker's thread) → muxer.
    func runParallel(input: String) throws {
        let logger = ExampleLogHandler.logger(for: "aac-encoder", verbose: logging.verbose, quiet: quiet)
        // The header, read once here: its diagnostics are logged once, not by every segment's reader.
        let header = try WAVReader(path: input)
        header.logger = logger
        let encoder = try ParallelAACEncoder(frameCount: header.frameCount, bitRate: bitrate) {
            range throws(MediaError) in try WAVReader(path: input, frames: range)
        }
        for (index, segment) in encoder.segments.enumerated() where logging.verbose {
            printError("aac-encoder: segment \(index + 1) of \(encoder.segments.count): \(segment)")
        }
        var pipeline = Pipeline(source: encoder, sink: try makeSink(), logger: logger)
        let progress = ProgressReporter(name: "aac-encoder", verb: "encoded", enabled: !quiet && output != "-")
        let result = try pipeline.run(progress: progress.reportUntilInterrupted)
        let wall = progress.finish()
        guard !quiet else { return }
        let audioSeconds = Double(encoder.framesEncoded) / Double(header.format.sampleRate)
        printError(
            "aac-encoder: \(count: encoder.framesEncoded, "frame") in, \(count: result.samplesWritten, "packet") out, "
                + "\(formatDecimal(audioSeconds, 3)) s of audio, \(count: result.bytesWritten, "byte") of AAC, "
                + "\(formatDecimal(audioSeconds / max(wall, 1e-9), 1))x realtime, "
                + "\(count: encoder.segments.count, "segment") on \(count: encoder.threads, "thread") → \(output)")
        if let line = InputWarnings.line(example: "aac-encoder", path: input, wav: header) { printError(line) }
    }

    /// The muxer the output's extension asks for: `.caf` CAF, `.m4a`/`.mp4` M4A, anything else ADTS.
    func makeSink() throws -> any MediaSink {
        let suffix = output.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch output == "-" ? "" : suffix {
        case "caf": return CAFMuxer(output: try FileOutput(path: output))
        case "m4a", "mp4": return OneTrackSink(try ContainerMuxer(path: output, format: .m4a))
        default: return ADTSMuxer(output: try FileOutput(path: output))
        }
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
