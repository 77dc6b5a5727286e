import MediaCore

extension LiveStreamSink.Stats: CustomStringConvertible {
    /// One line, as `live-streamer`'s `stats` command prints it: `sent 1500 frames (900 video, 600 audio,
    /// 2.1 MB) at 2480 kb/s, target 2500 kb/s; dropped 0 frames (0 GOPs), 0 while reconnecting; 0
    /// reconnects; queue 40 ms (max 180 ms), 0 writer waits; latency p50 35 ms, p99 80 ms`. Parts with
    /// nothing to say yet are `-`.
    public var description: String {
        let bytes = sentBytes.map { ", \(Self.megabytes($0)) MB" } ?? ""
        let rate = sentBitRate.map { "\(Self.kilo($0)) kb/s" } ?? "- kb/s"
        let target = targetBitRate.map { ", target \(Self.kilo(Double($0))) kb/s" } ?? ""
        let p50 = latencyP50.map { "\(Self.milliseconds($0)) ms" } ?? "-"
        let p99 = latencyP99.map { "\(Self.milliseconds($0)) ms" } ?? "-"
        return
            "sent \(count: sentFrames, "frame") (\(sentVideoFrames) video, \(sentAudioFrames) audio\(bytes)) at \(rate)\(target); "
            + "dropped \(count: droppedFrames, "frame") (\(count: droppedGOPs, "GOP")), \(droppedWhileReconnecting) while reconnecting; "
            + "\(count: reconnects, "reconnect"); "
            + "queue \(Self.milliseconds(queueSeconds)) ms (max \(Self.milliseconds(maxQueueSeconds)) ms), \(count: writerWaits, "writer wait"); "
            + "latency p50 \(p50), p99 \(p99)"
    }

    private static func kilo(_ bitsPerSecond: Double) -> Int { Int((bitsPerSecond / 1000).rounded()) }
    private static func milliseconds(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }

    /// Bytes in megabytes with one decimal: `2.1`.
    private static func megabytes(_ bytes: Int64) -> String {
        let tenths = (bytes + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}

extension ReconnectingSink.Event: CustomStringConvertible {
    /// One sentence: `disconnected (connection reset by peer); retrying in 0.5 s`, `reconnected at
    /// attempt 2 after 1.2 s`.
    public var description: String {
        switch self {
        case .disconnected(let error, let retryIn):
            return "disconnected (\(error.message)); retrying in \(MediaTime(retryIn))"
        case .attemptFailed(let attempt, let error, let retryIn):
            let next = retryIn.map { "; retrying in \(MediaTime($0))" } ?? "; giving up"
            return "attempt \(attempt) failed (\(error.message))\(next)"
        case .reconnected(let attempt, let downtime):
            return "reconnected at attempt \(attempt) after \(MediaTime(downtime))"
        case .resumed(let decodeTime):
            return "resumed at decode time \(decodeTime)"
        }
    }
}
