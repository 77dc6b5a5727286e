import MediaCore
import MediaAudio
internal import MediaFFmpeg

/// One recording: builds the graph (input → ``RecordingGate`` → converter or AAC encoder → the
/// container's sink) on the recording's task and runs it to the end.
struct RecordingJob: Sendable {
    let path: String
    let settings: AudioRecorderSettings
    let container: AudioRecordingContainer
    let input: AudioRecorderInput
    let limit: Int64?
    let control: RecordingControl
    let meter: LevelMeter

    /// Starts the recording on the graph's own threads; `onEnd` gets the error that ended it, `nil` for
    /// a clean end.
    func start(onEnd: @escaping @Sendable (MediaError?) -> Void) -> MediaGraphRun? {
        let graph: MediaGraph
        do {
            graph = try makeGraph()
        } catch {
            onEnd(Self.mediaError(error, path: path))
            return nil
        }
        return graph.start { result in
            switch result {
            case .success: onEnd(nil)
            case .failure(let error): onEnd(Self.mediaError(error, path: path))
            }
        }
    }

    static func mediaError(_ error: any Error, path: String) -> MediaError {
        (error as? MediaError) ?? MediaError(.io, "the recording of '\(path)' failed: \(error)")
    }

    private func makeGraph() throws -> MediaGraph {
        var graph = MediaGraph()
        let gate = RecordingGate(
            input: try input.make(settings), sampleRate: settings.sampleRate, limit: limit, control: control)
        var stages: [any MediaStage] = [meter.stage]
        switch settings.format {
        case .aac: stages.append(try AACEncoder(bitRate: settings.bitRate))
        case .linearPCM where settings.pcmSampleType != .f32:
            stages.append(try AudioConverter(format: PCMFormat(settings.pcmSampleType)))
        case .linearPCM: break
        }
        let branch = graph.addBranch("recording", source: gate, stages: stages)
        try container.addSink(to: &graph, path: path, input: branch)
        return graph
    }
}
