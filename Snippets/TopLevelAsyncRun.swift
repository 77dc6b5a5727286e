// `try await graph.run()` in top-level code (a `main.swift`) must be the async run, which leaves the
// main actor free while the graph works on threads of its own. Were it a synchronous run on the main
// thread, the main-actor task below could never raise the flag that ends the source, and this program
// would not end: TopLevelAsyncRunTests runs it with a time limit.
import MediaPipeline
import Synchronization

/// Raised once, from the main actor.
final class Flag: Sendable {
    let raised = Atomic<Bool>(false)
}

/// 20 ms of silence at a time until the flag is raised.
struct UntilRaised: MediaSource {
    let flag: Flag
    var frame: Int64 = 0

    mutating func next() throws -> MediaSample? {
        guard !flag.raised.load(ordering: .acquiring) else { return nil }
        defer { frame += 160 }
        return MediaSample(
            format: .audio(.pcm(.s16, sampleRate: 8000, channels: 1)), data: [UInt8](repeating: 0, count: 320),
            timing: .audio(startFrame: frame, frameCount: 160, sampleRate: 8000), frameCount: 160)
    }
}

/// Counts what it is given.
struct Counter: MediaSink {
    var count = 0
    mutating func write(_ sample: MediaSample) throws { count += 1 }
    func finish() throws {}
}

let flag = Flag()
var graph = MediaGraph()
let branch = graph.addBranch(source: UntilRaised(flag: flag))
graph.addSink(Counter(), input: branch)
Task { @MainActor in flag.raised.store(true, ordering: .releasing) }
let progress = try await graph.run()
print("main actor free: the graph read \(progress.branches[0].samplesRead) samples")
