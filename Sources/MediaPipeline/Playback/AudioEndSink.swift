import MediaCore

/// The sink of a ``MediaPlayer``'s audio branch: the audio output's own sink, and a call once it has
/// finished (the last of the audio heard) or failed.
///
/// The video branch holds its last frame while the audio plays on (``VideoControl``), and its clock is
/// the audio heard; the call tells it the audio is over, so that it ends too, and the player's clock
/// goes on from there without the audio (a file whose audio is shorter than its video).
struct AudioEndSink: MediaSink {
    var output: any MediaSink
    /// Called once the output has finished, or when a write failed.
    let ended: @Sendable () -> Void
    var name: String { output.name }

    mutating func write(_ sample: MediaSample) throws {
        do { try output.write(sample) } catch {
            ended()
            throw error
        }
    }

    mutating func finish() throws {
        defer { ended() }
        try output.finish()
    }
}
