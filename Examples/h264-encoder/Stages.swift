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

/// Hands out at most `limit` samples of `source` (ffmpeg's `-frames:v`).
struct FirstFrames: MediaSource {
    var source: any MediaSource
    var limit: Int
    var given = 0

    mutating func next() throws -> MediaSample? {
        guard given < limit, let sample = try source.next() else { return nil }
        given += 1
        return sample
    }

    var name: String { source.name }
}

/// Gives the decoded frames of an `.h264` input consecutive timestamps in presentation order. An
/// elementary stream carries none: the reader numbers access units in decode order, which with
/// B-frames is not the order the decoder hands frames out in. The ffmpeg CLI does the same for raw H.264.
struct Retimer: MediaStage {
    var index: Int64 = 0

    mutating func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        guard let rate = sample.format.video?.frameRate, rate.isValid else { return try emit(sample) }
        var frame = sample
        let pts = rate.time(ofFrame: index)
        frame.timing = SampleTiming(presentationTime: pts, decodeTime: pts, duration: rate.frameDuration)
        index += 1
        try emit(frame)
    }

    mutating func finish(into emit: (MediaSample) throws -> Void) throws {}
}

/// The pixel formats libx264 takes as they are; others are converted to yuv420p first.
let encoderPixelFormats: Set<PixelFormat> = [.yuv420p, .yuv422p, .yuv444p, .nv12]
