import Foundation
import MediaPipeline
import Synchronization

/// What the player reported, read by the main thread.
final class PlayerOutcome: Sendable {
    private let state = Mutex<(finished: Bool, error: MediaError?)>((false, nil))

    func take(_ event: AudioPlayerEvent) {
        state.withLock { s in
            switch event {
            case .finished: s.finished = true
            case .decodeError(let error): s.error = error
            }
        }
    }

    var isFinished: Bool { state.withLock { $0.finished } }
    var error: MediaError? { state.withLock { $0.error } }
}

/// A level bar over −60…0 dBFS: `#` to the average, `=` to the peak.
enum LevelLine {
    static func draw(_ peak: Float, _ average: Float, width: Int = 30) -> String {
        func cells(_ db: Float) -> Int { max(0, min(width, Int(((db + 60) / 60 * Float(width)).rounded()))) }
        let a = cells(average), p = max(a, cells(peak))
        return "[" + String(repeating: "#", count: a) + String(repeating: "=", count: p - a)
            + String(repeating: " ", count: width - p) + "]"
    }
}
