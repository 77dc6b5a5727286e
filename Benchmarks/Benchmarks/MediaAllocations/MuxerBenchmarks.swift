import Benchmark
import Foundation
import MediaCore
import MediaFFmpeg
import MediaFormats

/// The muxers: samples in, bytes out. One run writes 1000 samples; making the muxer (and the first
/// sample, which writes the header) and finishing it (the trailer) are outside the measurement. The
/// pure-Swift muxers write to an output that keeps nothing, ContainerMuxer to an MP4 in a temporary
/// folder (its AVIOContext is libavformat's own).
func muxerBenchmarks() {
    Benchmark("ADTSMuxer") { benchmark in
        run(benchmark) { try measure(benchmark, ADTSMuxer(output: NullOutput()), $0.aacPackets) }
    }
    Benchmark("AnnexBMuxer") { benchmark in
        run(benchmark) { try measure(benchmark, AnnexBMuxer(output: NullOutput()), $0.h264Packets) }
    }
    Benchmark("CAFMuxer") { benchmark in
        run(benchmark) { try measure(benchmark, CAFMuxer(output: NullOutput()), $0.aacPackets) }
    }
    Benchmark("WAVMuxer") { benchmark in
        run(benchmark) { try measure(benchmark, WAVMuxer(output: NullOutput()), $0.int16PCM) }
    }
    Benchmark("AIFFMuxer") { benchmark in
        run(benchmark) { try measure(benchmark, AIFFMuxer(output: NullOutput()), $0.int16PCM) }
    }
    Benchmark("AUMuxer") { benchmark in
        run(benchmark) { try measure(benchmark, AUMuxer(output: NullOutput()), $0.int16PCM) }
    }
    Benchmark("Y4MMuxer") { benchmark in
        run(benchmark) { try measure(benchmark, Y4MMuxer(output: NullOutput()), $0.videoFrames) }
    }
    Benchmark("ContainerMuxer.MP4") { benchmark in
        run(benchmark) { inputs in try measureMP4(benchmark, inputs) }
    }
}

/// Writes `samples[0]` unmeasured, then `samples[1...1000]` measured, then finishes unmeasured.
func measure(_ benchmark: Benchmark, _ muxer: some MediaSink, _ samples: [MediaSample]) throws -> Int {
    var muxer = muxer
    let run = samples.prefix(samplesPerRun + 1)
    guard let first = run.first else { return 0 }
    try muxer.write(first)
    benchmark.startMeasurement()
    for sample in run.dropFirst() { try muxer.write(sample) }
    benchmark.stopMeasurement()
    try muxer.finish()
    return run.count - 1
}

/// An MP4 of an H.264 and an AAC track, 500 samples of each written alternately (libavformat
/// interleaves them by time).
func measureMP4(_ benchmark: Benchmark, _ inputs: Inputs) throws -> Int {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("allocations-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let muxer = try ContainerMuxer(path: folder.appendingPathComponent("out.mp4").path, format: .mp4)
    let video = inputs.h264Packets
    let audio = inputs.aacPackets
    try muxer.begin(tracks: [video[0].format, audio[0].format])
    try muxer.write(video[0], track: 0)
    try muxer.write(audio[0], track: 1)
    var count = 0
    benchmark.startMeasurement()
    for index in 1...(samplesPerRun / 2) {
        try muxer.write(video[index], track: 0)
        try muxer.write(audio[index], track: 1)
        count += 2
    }
    benchmark.stopMeasurement()
    try muxer.finish()
    return count
}
