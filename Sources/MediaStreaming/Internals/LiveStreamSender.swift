import MediaCore

/// The sender thread of a ``LiveStreamSink``: takes entries from the queue and hands them to the inner
/// sink it alone owns, measuring latency on the clock; finishes the inner sink when the queue is done.
struct LiveStreamSender {
    var sink: any MultiTrackSink
    let queue: LiveQueue
    let clock: MediaClock

    mutating func run() {
        var failed = false
        while let entry = queue.take() {
            guard !failed else { continue }  // after an error: discard until finish
            let captured = entry.sample.timing.presentationTime
            let latency = captured.isNumeric ? (clock.now - captured).seconds : nil
            let discardedBefore = (sink as? any ReconnectCounting)?.discardedSamples ?? 0
            do {
                try sink.write(entry.sample, track: entry.track)
                let bytes = (sink as? any SentByteCounting)?.bytesWritten
                let reconnecting = sink as? any ReconnectCounting
                if let reconnecting, reconnecting.discardedSamples > discardedBefore {
                    // Accepted but not sent: the connection was down (or awaiting a keyframe).
                    queue.didDiscard(reconnects: reconnecting.reconnects, bytes: bytes)
                } else {
                    queue.didSend(
                        entry, latency: latency, bytes: bytes, reconnects: reconnecting?.reconnects, at: clock.now)
                }
            } catch {
                failed = true
                queue.fail(Self.mediaError(error))
            }
        }
        do {
            try sink.finish()
        } catch {
            queue.fail(Self.mediaError(error))
        }
        queue.senderEnded(bytes: (sink as? any SentByteCounting)?.bytesWritten)
    }

    static func mediaError(_ error: any Error) -> MediaError {
        (error as? MediaError) ?? MediaError(.io, "the live stream's sink failed: \(error)")
    }
}
