// mux-benchmark: muxing and parsing throughput, for Benchmarks/compare.py.
//
//   mux-benchmark <mode> <input> <output>
//
//   adts       ADTSReader → ADTSMuxer → FileOutput   (parse + rewrite ADTS, no decode)
//   caf-write  ADTSReader → CAFMuxer  → FileOutput   (the same packets into CAF: desc, kuki, pakt)
//   caf-read   CAFReader  → count packets and bytes  (output ignored, pass `-`)
//   adts-read  ADTSReader → count packets and bytes  (output ignored, pass `-`)
//   annexb     AnnexBReader → AnnexBMuxer → FileOutput (parse + rewrite H.264 Annex-B, no decode)
//
// Prints one line to standard error: mode, packets, bytes, seconds. A plain loop, no Foundation, and
// only the pure-Swift modules (no FFmpeg libraries to load at start-up).
#if canImport(Glibc)
    import Glibc
#endif
import MediaCore
import MediaFormats

/// Writes one line to standard error.
func printError(_ text: String) {
    let line = text + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Pulls every sample from `source` into `sink` (if any); returns (packets, payload bytes).
func drain(_ source: inout some MediaSource, into sink: inout (some MediaSink)?) throws -> (Int64, Int64) {
    var packets: Int64 = 0
    var bytes: Int64 = 0
    while let sample = try source.next() {
        packets += 1
        bytes += Int64(sample.byteCount)
        try sink?.write(sample)
    }
    try sink?.finish()
    return (packets, bytes)
}

func run() throws -> Int32 {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard arguments.count == 3 else {
        printError("usage: mux-benchmark adts|caf-write|caf-read|adts-read|annexb|audio-parse <input> <output|->")
        return 2
    }
    let (mode, input, output) = (arguments[0], arguments[1], arguments[2])
    let start = now()
    let counts: (Int64, Int64)
    switch mode {
    case "adts":
        var source = try ADTSReader(path: input)
        var sink: ADTSMuxer? = ADTSMuxer(output: try FileOutput(path: output))
        counts = try drain(&source, into: &sink)
    case "caf-write":
        var source = try ADTSReader(path: input)
        var sink: CAFMuxer? = CAFMuxer(output: try FileOutput(path: output))
        counts = try drain(&source, into: &sink)
    case "caf-read":
        var source = try CAFReader(path: input)
        var sink: ADTSMuxer? = nil
        counts = try drain(&source, into: &sink)
    case "annexb":
        var source = try AnnexBReader(path: input)
        var sink: AnnexBMuxer? = AnnexBMuxer(output: try FileOutput(path: output))
        counts = try drain(&source, into: &sink)
    case "adts-read":
        var source = try ADTSReader(path: input)
        var sink: ADTSMuxer? = nil
        counts = try drain(&source, into: &sink)
    case "audio-parse":
        // AudioFileStreamParser over the whole file (any of its seven containers): what media-info does.
        let summary = try AudioFileSummary(path: input)
        counts = (summary.packets, summary.dataBytes)
    default:
        printError("mux-benchmark: unknown mode '\(mode)' (adts, caf-write, caf-read, adts-read, annexb, audio-parse)")
        return 2
    }
    let seconds = now() - start
    printError("\(mode) packets=\(counts.0) bytes=\(counts.1) seconds=\(seconds)")
    return 0
}

do {
    exit(try run())
} catch {
    printError("mux-benchmark: \(error)")
    exit(1)
}
