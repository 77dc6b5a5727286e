import ExampleSupport
import Foundation
import MediaPipeline
import Synchronization

/// One `--pull URL`: a thread that opens the URL and relays its first video and audio streams until
/// the input ends or media-relay stops; a live URL through `ReconnectingInput` (opened again after a
/// drop, for ever, with backoff), an HTTP(S) one through `ContainerDemuxer(url:options:)`.
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
                var graph = MediaGraph(logger: outputs.logger)
                var tracks: [MediaGraph.BranchID] = []
                if Self.isLive(url) {
                    // A live input comes back after a drop, its times going on (ReconnectingInput).
                    let name = name
                    let quiet = outputs.quiet
                    let input = try ReconnectingInput(url: url, options: options) { event in
                        if !quiet { printError("media-relay: pull \(name): \(event)") }
                    }
                    if let video = input.videoSource() {
                        tracks.append(graph.addBranch("\(name) video", source: video))
                    }
                    if let audio = input.audioSource() {
                        tracks.append(graph.addBranch("\(name) audio", source: audio))
                    }
                } else {
                    let demuxer = try ContainerDemuxer(url: url, options: options)
                    let indices = demuxer.streams.filter { $0.isVideo || $0.isAudio }.map(\.index)
                    for source in try ContainerDemuxer.sharedSources(demuxer, streams: indices) {
                        tracks.append(graph.addBranch("\(name) #\(source.stream.index)", source: source))
                    }
                }
                outputs.run(&graph, name: name, tracks: tracks, stop: stopSignal)
            } catch {
                printError("media-relay: pull \(name) (\(ContainerDemuxer.redacted(url))): \(error)")
            }
        }
    }

    /// Whether `url` is a live input (RTSP, RTMP, SRT, UDP, TCP), which is reconnected after a drop; an
    /// HTTP(S) file or playlist ends where it ends.
    static func isLive(_ url: String) -> Bool {
        let scheme = url.split(separator: ":").first.map { $0.lowercased() } ?? ""
        return ["rtsp", "rtsps", "rtmp", "rtmps", "rtmpt", "srt", "udp", "tcp"].contains(scheme)
    }

    /// Asks the pull to end: a blocked read returns, the files are finished.
    func stop() { stopSignal.request() }

    /// Waits for the thread to end.
    func wait() {
        if !isDone { finished.wait() }
    }
}
