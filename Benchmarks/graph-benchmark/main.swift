// The cost of one stage hop in MediaPipeline's drivers, measured the way GStreamer's is measured here
// (`gst-launch-1.0 fakesrc num-buffers=N ! identity ! … ! fakesink`): N one-byte samples through 0, 2, 4
// and 8 identity stages; the slope of time against stage count is the cost of one hop.
//
//     graph-benchmark [--samples N] [--stages K] [--driver graph|threaded|async|pipeline|concurrent]
//
// `graph`, `threaded` and `async` run one MediaGraph branch (runSynchronously(), runThreaded(), `await run()`): the
// stages share the branch's thread, so a hop is a function call. `pipeline` is Pipeline.run();
// `concurrent` is Pipeline.runConcurrently(), where every stage and the sink have a thread of their own,
// so each of the K + 1 hops crosses threads through a queue.
//
// Prints one line: `driver stages samples seconds`. Benchmarks/compare.py runs it beside GStreamer.
import MediaCore

#if canImport(Glibc)
    import Glibc
#endif

/// Passes each sample on unchanged: GStreamer's `identity`.
struct Identity: MediaStage {
    func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws { try emit(sample) }
    func finish(into emit: (MediaSample) throws -> Void) throws {}
}

/// Hands out the same one-byte sample `count` times (a copy is one reference count, as a GStreamer
/// `fakesrc` buffer is), with a fresh timestamp each time.
struct RepeatingSource: MediaSource {
    let count: Int
    var index = 0
    var sample = MediaSample(
        format: .audio(.pcm(PCMFormat(.u8), sampleRate: 8000, channels: 1)), data: [0],
        timing: .audio(startFrame: 0, frameCount: 1, sampleRate: 8000), frameCount: 1)

    mutating func next() throws -> MediaSample? {
        guard index < count else { return nil }
        index += 1
        return sample
    }
}

/// Counts what it receives: GStreamer's `fakesink`.
struct CountingSink: MediaSink {
    var count = 0
    mutating func write(_ sample: MediaSample) throws { count += 1 }
    func finish() throws {}
}

var samples = 1_000_000
var stageCount = 0
var driver = "graph"
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let flag = arguments.next() {
    switch flag {
    case "--samples": samples = Int(arguments.next() ?? "") ?? samples
    case "--stages": stageCount = Int(arguments.next() ?? "") ?? stageCount
    case "--driver": driver = arguments.next() ?? driver
    default:
        print("usage: graph-benchmark [--samples N] [--stages K] [--driver graph|threaded|async|pipeline|concurrent]")
        exit(64)
    }
}

let started = MediaClock.hostTime
do {
    switch driver {
    case "pipeline", "concurrent":
        var pipeline = Pipeline(
            source: RepeatingSource(count: samples), stages: Array(repeating: Identity(), count: stageCount),
            sink: CountingSink())
        let progress = driver == "pipeline" ? try pipeline.run() : try pipeline.runConcurrently()
        guard progress.samplesWritten == Int64(samples) else {
            print("error: the sink received \(progress.samplesWritten) samples, not \(samples)")
            exit(1)
        }
    case "threaded", "graph", "async":
        var graph = MediaGraph()
        let branch = graph.addBranch(
            source: RepeatingSource(count: samples), stages: Array(repeating: Identity(), count: stageCount))
        graph.addSink(CountingSink(), input: branch)
        let progress =
            switch driver {
            case "graph": try graph.runSynchronously()
            case "threaded": try graph.runThreaded()
            default: try await graph.run()
            }
        guard progress.sinks[0].samplesWritten == Int64(samples) else {
            print("error: the sink received \(progress.sinks[0].samplesWritten) samples, not \(samples)")
            exit(1)
        }
    default:
        print("error: unknown driver \(driver)")
        exit(64)
    }
} catch {
    print("error: \(error)")
    exit(1)
}
let elapsed = (MediaClock.hostTime - started).seconds ?? 0
print("\(driver) \(stageCount) \(samples) \(elapsed)")
