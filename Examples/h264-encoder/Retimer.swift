import MediaPipeline

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
