import Logging
import MediaCore

/// The part of a video encoder stage that is the same for every codec: the session the first frame
/// opens (whose format every later frame must have), keyframe requests, bit-rate changes, and the drain.
///
/// Not generic over the codec, for the reason ``AudioEncoderStageState`` gives (valgrind and the Swift
/// runtime's generic struct metadata): the codec is an existential.
struct VideoEncoderStageState {
    let codec: any VideoEncoderCodec
    let settings: VideoEncoderSettings
    /// The codec's pixel formats, asked once (a computed set would be built for every frame).
    private let accepted: Set<PixelFormat>
    /// The open session, after the first frame.
    private(set) var session: VideoEncoderSession?
    /// How a changed target becomes rate-control values; `nil` when the rate cannot change.
    var ratePlan: H264RatePlan?
    /// Whether the graph running the stage asked for a keyframe.
    var isKeyframeForced = false
    private var index: Int64 = 0

    init(_ codec: any VideoEncoderCodec, settings: VideoEncoderSettings, ratePlan: H264RatePlan? = nil) {
        self.codec = codec
        self.settings = settings
        accepted = codec.acceptedPixelFormats
        self.ratePlan = ratePlan
    }

    /// Opens the session on the first frame, then encodes `sample` (a keyframe when `request` has one
    /// pending or the graph forced one); `stage` names the stage in errors.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/formatMismatch`` for a sample that is not raw video of an
    ///   accepted pixel format, or not in the first frame's format; the session's errors.
    mutating func process(
        _ sample: MediaSample, stage: @autoclosure () -> String, request: KeyframeRequest?, logger: Logger?,
        into emit: (MediaSample) throws -> Void
    ) throws {
        guard case .video(let input) = sample.format, let pixels = input.pixelFormat else {
            throw MediaError.formatMismatch(stage: stage(), expected: "raw video (yuv420p)", actual: sample.format)
        }
        guard accepted.contains(pixels) else {
            let names = accepted.map(\.description).sorted().joined(separator: ", ")
            throw MediaError.formatMismatch(
                stage: stage(), expected: "one of \(names) (put a VideoConverter in front)", actual: sample.format)
        }
        defer { index += 1 }
        try sample.validateVideoLayout(input, index: index)
        if session == nil {
            let opening = ratePlan?.opening(settings) ?? settings
            session = try VideoEncoderSession(codec, input: input, settings: opening, first: sample.timing)
        }
        guard let session else { return }
        // The same format as the first frame's, strides aside (compared field by field only when it is not
        // equal outright: `packed` makes new arrays).
        guard input == session.input || input.packed == session.input.packed else {
            throw MediaError.formatMismatch(
                stage: stage(), expected: "\(session.input) (the first frame's format)", actual: sample.format)
        }
        if let rate = ratePlan?.change() { session.setRate(rate) }
        let forceKeyframe = (request?.take() ?? false) || isKeyframeForced
        isKeyframeForced = false
        if forceKeyframe, !codec.honoursKeyframeRequests {
            MediaDiagnostic(
                .warning,
                "\(codec.encoderName) cannot code frame \(index) as the keyframe asked for (FFmpeg 5.1's wrapper ignores the request); the stream goes on with its own keyframes.",
                metadata: [
                    DiagnosticKey.stage: stage(), DiagnosticKey.code: "keyframeNotHonoured",
                    DiagnosticKey.sampleIndex: String(index)
                ]
            ).log(to: logger)
        }
        try session.encode(sample, format: input, index: index, forceKeyframe: forceKeyframe, into: emit)
    }

    /// Drains the encoder (nothing before the first frame).
    func finish(into emit: (MediaSample) throws -> Void) throws {
        try session?.drain(into: emit)
    }
}
