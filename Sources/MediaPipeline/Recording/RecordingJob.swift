public import MediaCore
internal import MediaFFmpeg
import Synchronization

/// One recording: builds the graph (input → ``RecordingGate`` → converter or AAC encoder → the
/// container's sink) on the recording's task and runs it to the end.
struct RecordingJob: Sendable {
    let path: String
    let settings: AudioRecorderSettings
    let container: AudioRecordingContainer
    let input: AudioRecorderInput
    let limit: Int64?
    let control: RecordingControl

    /// Runs the recording; returns the error that ended it, `nil` for a clean end. `inputLost` is
    /// called when the count of lost-input buffers grows.
    func run(inputLost: @escaping @Sendable (Int) -> Void) async -> MediaError? {
        do {
            let graph = try makeGraph()
            let reported = LostInputCount()
            try await graph.run { _ in
                let lost = control.inputDiscontinuities
                if reported.advance(to: lost) { inputLost(lost) }
            }
            return nil
        } catch let error as MediaError {
            return error
        } catch {
            return MediaError(.io, "the recording of '\(path)' failed: \(error)")
        }
    }

    private func makeGraph() throws -> MediaGraph {
        var graph = MediaGraph()
        let gate = RecordingGate(input: try input.make(settings), sampleRate: settings.sampleRate, limit: limit, control: control)
        var stages: [any MediaStage] = []
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

/// The lost-input count last reported, so that each growth is reported once.
final class LostInputCount: Sendable {
    private let value = Atomic<Int>(0)

    /// Records `count`; `true` when it is more than the last one recorded.
    func advance(to count: Int) -> Bool {
        value.exchange(count, ordering: .acquiringAndReleasing) < count
    }
}
