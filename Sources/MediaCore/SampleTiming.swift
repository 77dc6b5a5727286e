/// When a sample is presented, when it is decoded, and how long it lasts: `CMSampleTimingInfo`.
///
/// For audio and for video without reordering, ``decodeTime`` equals ``presentationTime``.
public struct SampleTiming: Sendable, Hashable {
    /// When the sample is presented (pts).
    public var presentationTime: MediaTime
    /// When the sample is decoded (dts); ``MediaTime/invalid`` when it is the presentation time.
    public var decodeTime: MediaTime
    /// How long the sample lasts.
    public var duration: MediaTime

    /// Timing with the given presentation time, decode time and duration.
    public init(presentationTime: MediaTime, decodeTime: MediaTime = .invalid, duration: MediaTime) {
        self.presentationTime = presentationTime
        self.decodeTime = decodeTime
        self.duration = duration
    }

    /// No timing known.
    public static let invalid = SampleTiming(presentationTime: .invalid, decodeTime: .invalid, duration: .invalid)

    /// The decode time, or the presentation time when no separate decode time is set.
    public var effectiveDecodeTime: MediaTime { decodeTime.isValid ? decodeTime : presentationTime }

    /// Timing for `frameCount` audio frames starting `startFrame` frames into a stream at `sampleRate`.
    public static func audio(startFrame: Int64, frameCount: Int, sampleRate: Int) -> SampleTiming {
        let scale = Int32(clamping: sampleRate)
        let pts = MediaTime(value: startFrame, timescale: scale)
        return SampleTiming(
            presentationTime: pts, decodeTime: pts, duration: MediaTime(value: Int64(frameCount), timescale: scale))
    }
}
