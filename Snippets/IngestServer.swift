// An RTMP ingest server recording each published stream in segments (MediaIngest's article). The address
// is an example: `swift build` compiles this program, nothing runs it.
import MediaIngest
import MediaPipeline

do {
    // snippet.server
    let server = try IngestServer(
        rtmp: .init(host: "127.0.0.1", port: 1935),
        authorize: { $0.key == "cam1" ? nil : "unknown stream key" }
    ) { stream in
        // A thread of the stream's own: run its graph until the publisher stops.
        var graph = MediaGraph()
        var tracks: [MediaGraph.BranchID] = []
        if let video = stream.videoSource() { tracks.append(graph.addBranch("video", source: video)) }
        if let audio = stream.audioSource() { tracks.append(graph.addBranch("audio", source: audio)) }
        do {
            graph.addSink(try SegmentedRecorder(directory: "rec/\(stream.key)"), tracks: tracks)
            try graph.runThreaded()
        } catch {
            print("\(stream.key): \(error)")
        }
    }
    // … until the program is asked to stop:
    server.stop()  // every connection closed, every handler returned
    // snippet.end
}
