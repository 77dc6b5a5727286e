import MediaCore
import MediaTestSupport
import Testing

/// One engine: every scenario runs through the four ways to run a graph (`runSynchronously`,
/// `runThreaded`, `await run`, `start` then `wait`) and must leave the same samples in every sink and
/// track, the same counts and the same error. (Across tracks, how tightly the threaded modes interleave
/// depends on the threads' speeds, within the bound: so samples are compared track by track.)
@Suite(.timeLimit(.minutes(2))) struct RunModeEquivalenceTests {
    enum Mode: String, CaseIterable, Sendable {
        case synchronous, threaded, async, started
    }

    /// What a run left behind, in a form two runs can be compared by.
    struct Outcome: Equatable, CustomStringConvertible {
        /// For each sink, for each track, each sample's first two bytes and its decode time.
        var written: [[[String]]]
        var finishes: [Int]
        /// Each branch's counts, and each sink's samples and bytes (not its queue's high-water mark,
        /// which depends on the threads' speeds).
        var counts: [String]
        /// `code stage sample message` of the error the run threw, if any.
        var error: String?

        var description: String { "error: \(error ?? "none")\ncounts: \(counts)\nfinishes: \(finishes)" }
    }

    /// A scenario: builds its graph around fresh collectors, and may use the stop signal.
    struct Scenario: Sendable, CustomTestStringConvertible {
        let name: String
        let sinkCount: Int
        /// The start of the error the run must throw, or `nil` when it must succeed.
        var error: String? = nil
        let build: @Sendable ([SampleCollector], StopSignal) -> MediaGraph
        var testDescription: String { name }
    }

    static func holdOne() -> ClosureStage {
        let held = LockedBox<MediaSample?>(nil)
        return ClosureStage("HoldOne", tail: { held.withLock { $0 }.map { [$0] } ?? [] }) { sample, _ in
            held.withLock { box in
                defer { box = sample }
                return box.map { [$0] } ?? []
            }
        }
    }

    static let scenarios: [Scenario] = [
        Scenario(name: "one branch, a stage holding one back", sinkCount: 1) { sinks, _ in
            var graph = MediaGraph()
            let audio = graph.addBranch(source: ArraySource(audioPackets(seconds: 2)), stages: [holdOne()])
            graph.addSink(sinks[0], input: audio)
            return graph
        },
        Scenario(name: "audio and video into one muxer", sinkCount: 1) { sinks, _ in
            var graph = MediaGraph()
            let audio = graph.addBranch("audio", source: ArraySource(audioPackets(seconds: 3)), stages: [holdOne()])
            let video = graph.addBranch("video", source: ArraySource(videoFrames(seconds: 3)))
            graph.addSink(sinks[0], tracks: [video, audio])
            return graph
        },
        Scenario(name: "fan-out: one encode into two sinks", sinkCount: 2) { sinks, _ in
            var graph = MediaGraph()
            let audio = graph.addBranch("audio", source: ArraySource(audioPackets(seconds: 2)))
            let video = graph.addBranch("video", source: ArraySource(videoFrames(seconds: 2)))
            graph.addSink(sinks[0], tracks: [video, audio])
            graph.addSink(sinks[1], input: audio)
            return graph
        },
        Scenario(
            name: "a source fails, the other branch runs to its end", sinkCount: 1,
            error: "truncated FailingArraySource 20 packet"
        ) { sinks, _ in
            var graph = MediaGraph()
            let cut = graph.addBranch(
                "cut", source: FailingArraySource(samples: Array(audioPackets(seconds: 1).prefix(20))),
                stages: [holdOne()])
            let video = graph.addBranch("video", source: ArraySource(videoFrames(seconds: 2)))
            graph.addSink(sinks[0], tracks: [video, cut])
            return graph
        },
        Scenario(name: "a stage fails", sinkCount: 1, error: "invalid data Refuser 30 refused") { sinks, _ in
            var graph = MediaGraph()
            let failing = ClosureStage("Refuser") { sample, index in
                if index == 30 { throw MediaError(.invalidData, "refused") }
                return [sample]
            }
            let audio = graph.addBranch(source: ArraySource(audioPackets(seconds: 2)), stages: [failing])
            graph.addSink(sinks[0], input: audio)
            return graph
        },
        Scenario(name: "a sink fails", sinkCount: 1, error: "I/O error CollectingUntilFailure 24 disk full") {
            sinks, _ in
            var graph = MediaGraph()
            let audio = graph.addBranch(source: ArraySource(audioPackets(seconds: 2)))
            graph.addSink(CollectingUntilFailure(after: 25, collector: sinks[0]), input: audio)
            return graph
        },
        Scenario(name: "stopped by a signal", sinkCount: 1) { sinks, stop in
            var graph = MediaGraph()
            let stopper = ClosureStage("Stopper") { sample, index in
                if index == 40 { stop.request() }
                return [sample]
            }
            let audio = graph.addBranch(source: EndlessSource(), stages: [stopper, holdOne()])
            graph.addSink(sinks[0], input: audio)
            return graph
        }
    ]

    static func run(_ scenario: Scenario, _ mode: Mode) async -> Outcome {
        let sinks = (0..<scenario.sinkCount).map { _ in SampleCollector() }
        let stop = StopSignal()
        let graph = scenario.build(sinks, stop)
        var progress: MediaGraph.Progress?
        var error: (any Error)?
        do {
            switch mode {
            case .synchronous: progress = try graph.runSynchronously(stop: stop)
            case .threaded: progress = try graph.runThreaded(stop: stop)
            case .async: progress = try await graph.run(stop: stop)
            case .started:
                let result = LockedBox<Result<MediaGraph.Progress, any Error>?>(nil)
                let run = graph.start(stop: stop) { outcome in result.withLock { $0 = outcome } }
                run.wait()
                progress = try result.withLock { $0 }?.get()
            }
        } catch let thrown {
            error = thrown
        }
        return Outcome(
            written: sinks.map { sink in
                (0..<max(1, sink.formats.count)).map { track in
                    sink.samples(track: track).map { "\($0.data.prefix(2)) \($0.timing.effectiveDecodeTime)" }
                }
            },
            finishes: sinks.map(\.finishCount),
            counts: (progress?.branches.map { "\($0)" } ?? [])
                + (progress?.sinks.map { "\($0.name) \($0.samplesWritten) \($0.bytesWritten)" } ?? []),
            error: error.map { error in
                guard let media = error as? MediaError else { return "\(type(of: error))" }
                return
                    "\(media.code) \(media.stage ?? "-") \(media.sampleIndex.map(String.init) ?? "-") \(media.message)"
            })
    }

    @Test(arguments: scenarios)
    func everyModeLeavesTheSameOutput(_ scenario: Scenario) async throws {
        let reference = await Self.run(scenario, .synchronous)
        #expect(reference.finishes.allSatisfy { $0 == 1 }, "every sink is finished once")
        #expect(reference.written.joined().joined().count > 0)
        if let expected = scenario.error {
            #expect(reference.error?.hasPrefix(expected) == true, "\(reference.error ?? "no error")")
        } else {
            #expect(reference.error == nil)
            #expect(!reference.counts.isEmpty)
        }
        for mode in Mode.allCases.dropFirst() {
            let outcome = await Self.run(scenario, mode)
            #expect(
                outcome == reference, "\(mode.rawValue) differs from the synchronous run:\n\(outcome)\nvs\n\(reference)"
            )
        }
    }
}

/// Collects into `collector` and throws at the `after`-th write.
private struct CollectingUntilFailure: MediaSink {
    let after: Int
    let collector: SampleCollector
    var writes = 0
    mutating func write(_ sample: MediaSample) throws {
        writes += 1
        if writes == after { throw MediaError(.io, "disk full") }
        try collector.write(sample)
    }
    func finish() throws { try collector.finish() }
}
