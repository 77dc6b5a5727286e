import Benchmark
import Foundation
import MediaCore
import MediaFFmpeg
import MediaFormats

/// Bytes are pushed in chunks of this size, as a file or socket reader would give them.
let chunkSize = 4096

/// The push parsers and readers: bytes in, samples out. One run parses a stream of exactly 1000
/// samples (the parser is made before the measurement starts; the end of input is part of the run).
func parserBenchmarks() {
    Benchmark("ADTSParser") { benchmark in
        run(benchmark) { inputs in
            var parser = ADTSParser()
            return try measure(benchmark, &parser, inputs.adts) { _ in true }
        }
    }
    Benchmark("AnnexBScanner") { benchmark in
        run(benchmark) { inputs in
            var parser = AnnexBScanner()
            return try measure(benchmark, &parser, inputs.nalUnits) { _ in true }
        }
    }
    // The same units read in place (`withNextNALUnit`): no array per unit.
    Benchmark("AnnexBScanner.inPlace") { benchmark in
        run(benchmark) { inputs in
            var scanner = AnnexBScanner()
            var count = 0
            let bytes = inputs.nalUnits
            benchmark.startMeasurement()
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + chunkSize)
                scanner.push(bytes[start..<end])
                while try scanner.withNextNALUnit({ span, _ in span.count }) != nil { count += 1 }
                start = end
            }
            scanner.finish()
            while try scanner.withNextNALUnit({ span, _ in span.count }) != nil { count += 1 }
            benchmark.stopMeasurement()
            return count
        }
    }
    Benchmark("AnnexBAccessUnitParser") { benchmark in
        run(benchmark) { inputs in
            var parser = AnnexBAccessUnitParser()
            return try measure(benchmark, &parser, inputs.annexB) { _ in true }
        }
    }
    Benchmark("Y4MParser") { benchmark in
        run(benchmark) { inputs in
            var parser = Y4MParser()
            return try measure(benchmark, &parser, inputs.y4m) { output in
                if case .frame = output { true } else { false }
            }
        }
    }
    // One event per 1024-frame PCM block for WAV and AIFF, one per AAC packet for CAF.
    let files: [(String, KeyPath<Inputs, [UInt8]>, AudioFileStreamParser.Batching)] = [
        ("WAV", \.wav, .init(maxBytes: 4096)),
        ("AIFF", \.aiff, .init(maxBytes: 4096)),
        ("CAF", \.caf, .init(maxPackets: 1))
    ]
    for (name, bytes, batching) in files {
        Benchmark("AudioFileStreamParser.\(name)") { benchmark in
            run(benchmark) { inputs in
                var parser = AudioFileStreamParser(batching: batching)
                return try measure(benchmark, &parser, inputs[keyPath: bytes]) { event in
                    if case .packets = event { true } else { false }
                }
            }
        }
    }
    // A file read through `AudioFileStreamParser` into one sample per AAC packet; the file is written
    // and opened (its header parsed) before the measurement.
    Benchmark("AudioFileReader.CAF") { benchmark in
        run(benchmark) { inputs in
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("allocations-\(UUID()).caf").path
            try Data(inputs.caf).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let reader = try AudioFileReader(path: path)
            var count = 0
            benchmark.startMeasurement()
            while try reader.next() != nil { count += 1 }
            benchmark.stopMeasurement()
            return count
        }
    }
    // An MP4 of 1000 AAC packets (written by ContainerMuxer before the measurement), read through
    // libavformat: the samples borrow the packets' buffers.
    Benchmark("ContainerDemuxer.MP4") { benchmark in
        run(benchmark) { inputs in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("allocations-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("audio.mp4").path
            let muxer = try ContainerMuxer(path: path, format: .mp4)
            try muxer.begin(tracks: [inputs.aacPackets[0].format])
            for sample in inputs.aacPackets.prefix(samplesPerRun) { try muxer.write(sample, track: 0) }
            try muxer.finish()
            let demuxer = try ContainerDemuxer(path: path)
            let source = try demuxer.source(stream: 0)
            var count = 0
            benchmark.startMeasurement()
            while try source.next() != nil { count += 1 }
            benchmark.stopMeasurement()
            return count
        }
    }
    // A raw .h264 of 1000 access units (AnnexBMuxer's, before the measurement), read through
    // libavformat's h264 demuxer: each packet rewritten from Annex-B to AVCC into a recycled sample.
    Benchmark("ContainerDemuxer.H264") { benchmark in
        run(benchmark) { inputs in
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("allocations-\(UUID()).h264").path
            try Data(inputs.annexB).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let source = try ContainerDemuxer.streamSource(path: path, stream: 0)
            var count = 0
            benchmark.startMeasurement()
            while try source.next() != nil { count += 1 }
            benchmark.stopMeasurement()
            return count
        }
    }
    Benchmark("CAFReader") { benchmark in
        run(benchmark) { inputs in
            let reader = try CAFReader(bytes: inputs.caf)
            var count = 0
            benchmark.startMeasurement()
            while try reader.next() != nil { count += 1 }
            benchmark.stopMeasurement()
            return count
        }
    }
}

/// Pushes `bytes` into `parser` in ``chunkSize`` chunks, drains it after each and after the end of
/// input; returns how many outputs `counts` says are samples. Only this is measured.
func measure<Parser: PushParser>(
    _ benchmark: Benchmark, _ parser: inout Parser, _ bytes: [UInt8], counts: (Parser.Output) -> Bool
) throws -> Int {
    var count = 0
    benchmark.startMeasurement()
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + chunkSize)
        parser.push(bytes[start..<end])
        while let output = try parser.next() { count += counts(output) ? 1 : 0 }
        start = end
    }
    parser.finish()
    while let output = try parser.next() { count += counts(output) ? 1 : 0 }
    benchmark.stopMeasurement()
    return count
}
