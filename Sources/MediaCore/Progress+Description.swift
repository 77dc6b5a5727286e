extension SampleTiming: CustomStringConvertible {
    /// `pts 1.5 s, dts 1.5 s, duration 0.021333 s (1024/48000)`; the decode time is left out when it is
    /// not set.
    public var description: String {
        let dts = decodeTime.isValid ? ", dts \(decodeTime)" : ""
        return "pts \(presentationTime)\(dts), duration \(duration)"
    }
}

extension Pipeline.Progress: CustomStringConvertible {
    /// One line: `read 120 samples (122880 audio frames, 0 video frames) to 2.56 s; wrote 119 samples
    /// (48211 bytes); 0 warnings`.
    public var description: String {
        "read \(count: samplesRead, "sample") (\(count: framesRead, "audio frame"), \(count: videoFramesRead, "video frame")) to \(position); "
            + "wrote \(count: samplesWritten, "sample") (\(count: bytesWritten, "byte")); \(count: warningCount, "warning")"
    }
}

extension MediaGraph.Progress.Branch: CustomStringConvertible {
    /// `audio: read 120 samples (122880 audio frames, 0 video frames) to 2.56 s, 119 out`.
    public var description: String {
        "\(name): read \(count: samplesRead, "sample") (\(count: framesRead, "audio frame"), \(count: videoFramesRead, "video frame")) to \(position), \(samplesOut) out"
    }
}

extension MediaGraph.Progress.Sink: CustomStringConvertible {
    /// `ContainerMuxer(mp4): wrote 240 samples (1048576 bytes), at most 12 queued`.
    public var description: String {
        "\(name): wrote \(count: samplesWritten, "sample") (\(count: bytesWritten, "byte")), at most \(maxQueuedSamples) queued"
    }
}

extension MediaGraph.Progress: CustomStringConvertible {
    /// The position, then one line per branch and per sink, then the warning count:
    ///
    /// ```text
    /// at 2.56 s
    ///   branch audio: read 120 samples (122880 audio frames, 0 video frames) to 2.56 s, 119 out
    ///   sink ContainerMuxer(mp4): wrote 119 samples (48211 bytes), at most 3 queued
    ///   0 warnings
    /// ```
    public var description: String {
        var lines = ["at \(position)"]
        lines += branches.map { "  branch \($0)" }
        lines += sinks.map { "  sink \($0)" }
        lines.append("  \(count: warningCount, "warning")")
        return lines.joined(separator: "\n")
    }
}
