import ExampleSupport
import Foundation
import MediaIngest
import Synchronization

/// `--stats-json`: one line a second on standard output, `{"time": S, "streams": [...]}`, with each RTMP
/// or SRT stream's counts (`name`, `app`, `source` "rtmp" or "srt", `videoSamples`, `audioSamples`, `bytes`,
/// `queuedBytes`, `queuedVideoSamples`, `queuedAudioSamples`) and each pull's (`name`, `source` "pull", `running`).
final class StatsLines: Sendable {
    private let server: IngestServer?
    private let pulls: [PullRun]
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Date()

    init(server: IngestServer?, pulls: [PullRun]) {
        self.server = server
        self.pulls = pulls
    }

    /// Prints a line a second on a thread of its own.
    func start() {
        Thread.detachNewThread { [self] in
            defer { finished.signal() }
            while !stopped.load(ordering: .acquiring) {
                Thread.sleep(forTimeInterval: 1)
                printLine()
            }
        }
    }

    /// Prints one last line and stops.
    func stop() {
        stopped.store(true, ordering: .releasing)
        finished.wait()
    }

    private func printLine() {
        var rows: [String] = []
        for stream in server?.streams ?? [] {
            let counts = stream.statistics
            rows.append(
                "{\"name\": \(json(stream.name)), \"app\": \(json(stream.app)), \"source\": \"\(stream.transport.rawValue)\", "
                    + "\"videoSamples\": \(counts.videoSamples), \"audioSamples\": \(counts.audioSamples), "
                    + "\"bytes\": \(counts.bytes), \"queuedBytes\": \(counts.queuedBytes), "
                    + "\"queuedVideoSamples\": \(counts.queuedVideoSamples), \"queuedAudioSamples\": \(counts.queuedAudioSamples)}"
            )
        }
        for pull in pulls {
            rows.append("{\"name\": \(json(pull.name)), \"source\": \"pull\", \"running\": \(!pull.isDone)}")
        }
        let time = formatDecimal(Date().timeIntervalSince(started), 1)
        let line = "{\"time\": \(time), \"streams\": [\(rows.joined(separator: ", "))]}\n"
        FileHandle.standardOutput.write(Data(line.utf8))  // unbuffered: a line a second, also into a pipe
    }

    /// `text` as a JSON string.
    private func json(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data()
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }
}
