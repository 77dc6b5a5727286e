import Foundation
import MediaCore
import MediaDisplay
import MediaPipeline

/// What the player reported, read by the main thread.
final class MediaPlayerOutcome: Sendable {
    private let state = Locked<(finished: Bool, error: MediaError?, stalls: Int, ended: Bool)>((false, nil, 0, false))

    func take(_ event: MediaPlayer.Event) {
        state.withLock { s in
            switch event {
            case .ended:
                s.finished = true
                s.ended = true
            case .failed(let error):
                s.error = error
                s.finished = true
            case .stalled: s.stalls += 1
            case .ready, .playing, .paused: break
            }
        }
    }

    var isFinished: Bool { state.withLock { $0.finished } }
    var error: MediaError? { state.withLock { $0.error } }
    /// "played to the end" or "stopped", and the stalls.
    var summary: String {
        state.withLock { s in
            (s.ended ? "played to the end" : "stopped") + (s.stalls > 0 ? ", the audio stalled \(s.stalls) times" : "")
        }
    }
}

/// The keys pressed in the window, handed from the window's thread to the main one.
final class WindowKeys: Sendable {
    private let state = Locked<[VideoPreviewSink.Key]>([])

    func add(_ key: VideoPreviewSink.Key) { state.withLock { $0.append(key) } }

    /// The keys pressed since the last call.
    func take() -> [VideoPreviewSink.Key] {
        state.withLock { s in
            defer { s.removeAll() }
            return s
        }
    }
}

/// `--frame-log`: one JSON line per frame shown, `{"pts":…,"shown":…}` in seconds (the frame's
/// presentation time on the file's timeline, and the monotonic host time it appeared at), written as
/// each frame is shown.
final class FrameLog: Sendable {
    private let file: Locked<(handle: FileHandle, count: Int)>

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw MediaError(.io, "cannot create \(path)")
        }
        file = Locked((handle, 0))
    }

    /// A frame of `presentationTime` shown at `hostTime`, when the player's clock stood at `clock`.
    func add(_ presentationTime: MediaTime, _ hostTime: MediaTime, clock: MediaTime?) {
        let line = String(
            format: "{\"pts\":%.6f,\"shown\":%.6f,\"clock\":%.6f}\n", presentationTime.seconds ?? -1,
            hostTime.seconds ?? -1, clock?.seconds ?? -1)
        file.withLock { f in
            f.handle.write(Data(line.utf8))
            f.count += 1
        }
    }

    var count: Int { file.withLock { $0.count } }

    /// Closes the file.
    func close() throws {
        try file.withLock { f in
            do { try f.handle.close() } catch { throw MediaError(.io, "cannot close the frame log: \(error)") }
        }
    }
}
