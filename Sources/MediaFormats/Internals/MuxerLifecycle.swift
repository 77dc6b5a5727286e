import MediaCore

/// The life cycle of a muxer that writes each sample as it comes (ADTS, Annex-B, YUV4MPEG2): it writes
/// until ``finish(_:closing:)``; after a refused or failed sample it writes nothing more, but `finish`
/// still flushes and closes the output, so that what was written stays a valid stream.
///
/// ```swift
/// try lifecycle.checkWritable(name)
/// do throws(MediaError) { ... } catch { throw lifecycle.failed(error, stage: name, sampleIndex: count) }
/// ```
struct MuxerLifecycle {
    private enum State {
        case writing
        case failed
        case finished
    }

    private var state = State.writing

    /// Throws ``MediaCore/MediaError/Code/stageFinished`` after `finish` or after a failed sample.
    func checkWritable(_ stage: String) throws(MediaError) {
        guard state == .writing else { throw MediaError.stageFinished(stage) }
    }

    /// Records that writing failed, and returns `error` with the sample's index (unless it names one)
    /// and the stage's name, to be thrown.
    mutating func failed(_ error: MediaError, stage: String, sampleIndex: Int64) -> MediaError {
        state = .failed
        var error = error
        if error.sampleIndex == nil { error.sampleIndex = sampleIndex }
        return error.inStage(stage)
    }

    /// Flushes and closes `output`, once: ``MediaCore/MediaError/Code/stageFinished`` when called again.
    mutating func finish(_ stage: String, closing output: any MediaOutput) throws(MediaError) {
        guard state != .finished else { throw MediaError.stageFinished(stage) }
        state = .finished
        do throws(MediaError) {
            try output.flush()
            try output.close()
        } catch {
            throw error.inStage(stage)
        }
    }
}
