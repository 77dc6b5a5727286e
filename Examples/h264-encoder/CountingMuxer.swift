import MediaPipeline

/// Passes samples to the Annex-B muxer and counts the keyframes among them, for the summary.
struct CountingMuxer: MediaSink {
    var muxer: AnnexBMuxer
    var keyframes: Int64 = 0
    var frames: Int64 = 0
    var firstTime: MediaTime = .invalid
    var endTime: MediaTime = .invalid

    mutating func write(_ sample: MediaSample) throws {
        try muxer.write(sample)
        frames += 1
        if sample.flags.contains(.keyframe) { keyframes += 1 }
        let pts = sample.timing.presentationTime
        if !firstTime.isValid || pts < firstTime { firstTime = pts }
        let end = pts + sample.timing.duration
        if !endTime.isValid || end > endTime { endTime = end }
    }

    mutating func finish() throws { try muxer.finish() }

    var name: String { muxer.name }
}
