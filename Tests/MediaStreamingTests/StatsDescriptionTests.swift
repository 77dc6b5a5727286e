import MediaCore
import MediaStreaming
import Testing

/// What `live-streamer`'s `stats` and an app's log show for the live stream's stats and outages.
@Suite(.timeLimit(.minutes(1))) struct StatsDescriptionTests {
    @Test func statsReadAsOneLineWithUnits() {
        var stats = LiveStreamSink.Stats()
        #expect(
            stats.description
                == "sent 0 frames (0 video, 0 audio) at - kb/s; dropped 0 frames (0 GOPs), 0 while reconnecting; 0 reconnects; queue 0 ms (max 0 ms), 0 writer waits; latency p50 -, p99 -"
        )
        stats.sentFrames = 1500
        stats.sentVideoFrames = 900
        stats.sentAudioFrames = 600
        stats.sentBytes = 2_149_000
        stats.sentBitRate = 2_480_400
        stats.targetBitRate = 2_500_000
        stats.droppedFrames = 1
        stats.droppedGOPs = 1
        stats.reconnects = 1
        stats.queueSeconds = 0.0404
        stats.maxQueueSeconds = 0.18
        stats.latencyP50 = 0.035
        stats.latencyP99 = 0.0804
        #expect(
            stats.description
                == "sent 1500 frames (900 video, 600 audio, 2.1 MB) at 2480 kb/s, target 2500 kb/s; dropped 1 frame (1 GOP), 0 while reconnecting; 1 reconnect; queue 40 ms (max 180 ms), 0 writer waits; latency p50 35 ms, p99 80 ms"
        )
    }

    @Test func reconnectionEventsReadAsSentences() {
        let reset = MediaError(.io, "connection reset by peer")
        #expect(
            ReconnectingSink.Event.disconnected(reset, retryIn: .milliseconds(500)).description
                == "disconnected (connection reset by peer); retrying in 0.5 s")
        #expect(
            ReconnectingSink.Event.attemptFailed(attempt: 5, reset, retryIn: nil).description
                == "attempt 5 failed (connection reset by peer); giving up")
        #expect(
            ReconnectingSink.Event.reconnected(attempt: 2, downtime: .milliseconds(1200)).description
                == "reconnected at attempt 2 after 1.2 s")
        #expect(
            ReconnectingSink.Event.resumed(decodeTime: MediaTime(value: 90, timescale: 30)).description
                == "resumed at decode time 3 s")
    }
}
