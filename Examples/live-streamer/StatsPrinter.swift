import Dispatch
import Foundation
import MediaPipeline

/// `--stats-json`: one JSON object per second on standard output, from the live sink's stats stream
/// (``LiveStreamSink/StatsSource/updates(every:)``), unbuffered so a pipe sees each line at once.
///
/// Keys (a contract scripts read), each `LiveStreamSink.Stats`' field of the same name: `sentBytes`,
/// `sentFrames`, `droppedFrames` (video dropped by the queue; what was lost while the connection was down
/// is `droppedWhileReconnecting`), `reconnects`, `queueSeconds`; also `sentBitRate` (0 after a second
/// without sending),
/// `videoBitRate` (the adaptive bit rate's target), `droppedGOPs`, `droppedWhileReconnecting`, `latencyP50Ms`, `latencyP99Ms`, `maxQueueSeconds`.
final class StatsPrinter: Sendable {
    private let task: Task<Void, Never>
    private let ended: DispatchSemaphore

    private init(task: Task<Void, Never>, ended: DispatchSemaphore) {
        self.task = task
        self.ended = ended
    }

    /// Starts printing `source`'s stats every second, on a task of its own.
    static func start(_ source: LiveStreamSink.StatsSource) -> StatsPrinter {
        let ended = DispatchSemaphore(value: 0)
        let task = Task.detached {
            for await stats in source.updates(every: .seconds(1)) { print(stats) }
            ended.signal()
        }
        return StatsPrinter(task: task, ended: ended)
    }

    /// Once the stream has ended: waits for the final line (the stats stream ends within a second of
    /// the sender), then stops.
    func finish() {
        if ended.wait(timeout: .now() + 2) == .timedOut { task.cancel() }
    }

    /// Prints one line for `stats`.
    static func print(_ stats: LiveStreamSink.Stats) {
        FileHandle.standardOutput.write(Data((json(stats) + "\n").utf8))
    }

    /// The JSON object for `stats`, keys in a fixed order.
    static func json(_ stats: LiveStreamSink.Stats) -> String {
        let number = { (value: Double?, digits: Int) in value.map { String(format: "%.\(digits)f", $0) } ?? "null" }
        let fields: [(String, String)] = [
            ("sentBytes", "\(stats.sentBytes ?? 0)"),
            ("sentFrames", "\(stats.sentFrames)"),
            ("droppedFrames", "\(stats.droppedFrames)"),
            ("reconnects", "\(stats.reconnects)"),
            ("queueSeconds", number(stats.queueSeconds, 3)),
            ("sentBitRate", number(stats.sentBitRate?.rounded(), 0)),
            ("videoBitRate", stats.targetBitRate.map(String.init) ?? "null"),
            ("sentVideoFrames", "\(stats.sentVideoFrames)"),
            ("sentAudioFrames", "\(stats.sentAudioFrames)"),
            ("droppedGOPs", "\(stats.droppedGOPs)"),
            ("droppedWhileReconnecting", "\(stats.droppedWhileReconnecting)"),
            ("maxQueueSeconds", number(stats.maxQueueSeconds, 3)),
            ("latencyP50Ms", number(stats.latencyP50.map { $0 * 1000 }, 1)),
            ("latencyP99Ms", number(stats.latencyP99.map { $0 * 1000 }, 1))
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}
