import ExampleSupport
import Foundation
import Logging
import MediaIngest
import MediaPipeline

/// What media-relay does with each stream: a graph from the stream's tracks to a ``SegmentedRecorder``
/// (`--record`), an HLS muxer (`--hls`) and a reconnecting push (`--push`), run until the stream ends.
struct RelayOutputs: Sendable {
    let record: String?
    let hls: String?
    let push: String?
    let segments: SegmentedRecorder.Options
    let logger: Logger
    let quiet: Bool

    /// `--retain`'s value: `N` files, `Ns`/`Nm`/`Nh` of time, `NMB` of bytes; `nil` when it is none of them.
    static func retention(_ text: String) -> SegmentedRecorder.Retention? {
        let lower = text.lowercased()
        func number(_ suffix: String) -> Double? {
            guard lower.hasSuffix(suffix), let value = Double(lower.dropLast(suffix.count)), value > 0 else {
                return nil
            }
            return value
        }
        if let count = Int(lower), count > 0 { return .files(count) }
        if let megabytes = number("mb") { return .bytes(Int64(megabytes * 1_048_576)) }
        if let seconds = number("s") { return .duration(.milliseconds(Int64(seconds * 1_000))) }
        if let minutes = number("m") { return .duration(.milliseconds(Int64(minutes * 60_000))) }
        if let hours = number("h") { return .duration(.milliseconds(Int64(hours * 3_600_000))) }
        return nil
    }

    /// Relays a published stream until its publisher ends (called on the stream's own thread).
    /// Whether `key` can name a stream's folder (`DIR/<key>/`): letters, digits, `.`, `_` and `-`, not
    /// `.` or `..`, so that no key reaches outside `DIR`.
    static func isFolderName(_ key: String) -> Bool {
        guard !key.isEmpty, key != ".", key != ".." else { return false }
        return key.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || "._-".unicodeScalars.contains(scalar))
        }
    }

    func relay(_ stream: IngestStream) {
        var graph = MediaGraph(logger: logger)
        var tracks: [MediaGraph.BranchID] = []
        if let video = stream.videoSource() { tracks.append(graph.addBranch("\(stream.key) video", source: video)) }
        if let audio = stream.audioSource() { tracks.append(graph.addBranch("\(stream.key) audio", source: audio)) }
        run(&graph, name: stream.key, tracks: tracks, stop: nil)
    }

    /// Adds the outputs for stream `name` and runs the graph to its end (or `stop`).
    func run(_ graph: inout MediaGraph, name: String, tracks: [MediaGraph.BranchID], stop: StopSignal?) {
        guard !tracks.isEmpty else {
            logger.warning("media-relay: \(name) has no audio or video track to relay")
            return
        }
        do {
            try addSinks(&graph, name: name, tracks: tracks)
            if !quiet { printError("media-relay: \(name): relaying") }
            // One thread per stream (the handler's), pulling whichever track is behind: a live stream's
            // samples come at the publisher's pace, so threads per branch and per sink would only add
            // hand-offs (two thread wake-ups per sample and output; about half of the relay's CPU with 20
            // publishers, Benchmarks/README.md). The outputs are muxers writing files, which keep up.
            let progress = try graph.runSynchronously(stop: stop)
            let samples = progress.branches.map(\.samplesRead).reduce(0, +)
            if !quiet { printError("media-relay: \(name): ended after \(samples) samples") }
        } catch {
            printError("media-relay: \(name): \(error)")
        }
    }

    private func addSinks(_ graph: inout MediaGraph, name: String, tracks: [MediaGraph.BranchID]) throws {
        let logger = logger
        if let record {
            let recorder = try SegmentedRecorder(directory: record + "/" + name, options: segments) { segment in
                logger.info(
                    "media-relay: \(name): recorded \(segment.file) (\(formatDecimal(segment.duration.seconds ?? 0, 3)) s)"
                )
            }
            graph.addSink(recorder, tracks: tracks)
        }
        if let hls {
            let folder = hls + "/" + name
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            graph.addSink(try ContainerMuxer(hlsPlaylist: folder + "/index.m3u8", hls: HLSOptions()), tracks: tracks)
        }
        if let push {
            let url = push.replacingOccurrences(of: "{name}", with: name)
            let quiet = quiet
            let sink = ReconnectingSink(
                name: url, backoff: ReconnectingSink.Backoff(maxAttempts: 5), keyframeRequest: KeyframeRequest(),
                onEvent: { event in if !quiet { printError("media-relay: \(name): push to \(url): \(event)") } }
            ) {
                try ContainerMuxer(url: url)
            }
            graph.addSink(sink, tracks: tracks)
        }
    }
}
