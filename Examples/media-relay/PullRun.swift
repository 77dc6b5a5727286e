import ExampleSupport
import Foundation
import MediaPipeline
import Synchronization

/// One `--pull URL`: a thread that opens the URL (`ContainerDemuxer(url:options:)`) and relays its audio
/// and video streams until the input ends or media-relay stops.
final class PullRun: Sendable {
    let url: String
    let name: String
    private let outputs: RelayOutputs
    private let stopSignal = StopSignal()
    private let done = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(url: String, name: String, outputs: RelayOutputs) {
        self.url = url
        self.name = name
        self.outputs = outputs
    }

    /// Whether the pull has ended.
    var isDone: Bool { done.load(ordering: .acquiring) }

    /// Starts the thread.
    func start() {
        Thread.detachNewThread { [self] in
            defer {
                done.store(true, ordering: .releasing)
                finished.signal()
            }
            do {
                var options = ContainerDemuxer.NetworkOptions()
                options.stop = stopSignal
                let demuxer = try ContainerDemuxer(url: url, options: options)
                var graph = MediaGraph(logger: outputs.logger)
                let indices = demuxer.streams.filter { $0.isVideo || $0.isAudio }.map(\.index)
                var tracks: [MediaGraph.BranchID] = []
                for source in try ContainerDemuxer.sharedSources(demuxer, streams: indices) {
                    tracks.append(graph.addBranch("\(name) #\(source.stream.index)", source: source))
                }
                outputs.run(&graph, name: name, tracks: tracks, stop: stopSignal)
            } catch {
                printError("media-relay: pull \(name) (\(ContainerDemuxer.redacted(url))): \(error)")
            }
        }
    }

    /// Asks the pull to end: a blocked read returns, the files are finished.
    func stop() { stopSignal.request() }

    /// Waits for the thread to end.
    func wait() {
        if !isDone { finished.wait() }
    }
}
