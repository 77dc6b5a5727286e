internal import MediaCore

/// The rate-control values an ``H264Encoder`` writes into its open `AVCodecContext` when its target bit
/// rate changes, and the bookkeeping of which target is applied.
///
/// libavcodec's libx264 wrapper (FFmpeg 5.1 `libavcodec/libx264.c`, `reconfig_encoder`, called for
/// every frame sent) compares `rc_buffer_size / 1000` and `rc_max_rate / 1000` with x264's VBV
/// parameters and `bit_rate / 1000` with its ABR target, and calls `x264_encoder_reconfig` when they
/// differ. x264 (`encoder.c`, `encoder_try_reconfig`) takes a new bit rate **only together with a VBV
/// that was on from the start** ("VBV can't be turned on if it wasn't on to begin with"), and moves its
/// long-term average only in its CBR-like mode, where the VBV maximum rate equals the average
/// (`ratecontrol.c`: `if( rc->b_vbv_min_rate ) rc->bitrate = …`). So the plan:
/// - always runs with a VBV: the settings' ``VideoEncoderSettings/dataRateLimit``, else a maximum rate
///   equal to the average and a 1-second buffer (what OBS's x264 CBR does: `vbv_maxrate = bitrate`,
///   `vbv_bufsize = bitrate`);
/// - scales the maximum rate and the buffer with the target, keeping the settings' ratios
///   (so a CBR-like stream stays CBR-like and the buffer keeps its length in seconds);
/// - never lets a value fall below 1000 bits (x264 counts in kilobits; 0 would switch the VBV off,
///   which x264 refuses, and the change would be ignored).
struct H264RatePlan {
    /// The values for `AVCodecContext.bit_rate`, `rc_max_rate` and `rc_buffer_size`.
    struct Values: Equatable {
        var bitRate: Int64
        var maxRate: Int64
        var bufferSize: Int32
    }

    /// The settings' average, maximum rate and buffer (the scaling base).
    let average: Int
    let maxRate: Int
    let bufferSize: Int
    /// The target whose values the context holds now.
    private(set) var applied: Int
    /// A target set on the encoder directly (``H264Encoder/setAverageBitRate(_:)``) with no control.
    var requested: Int?
    let control: BitRateControl?

    /// A plan for `settings`, or `nil` when the encoder cannot change its rate: no average bit rate
    /// (constant quality), or neither a control nor a VBV (adding a VBV nobody asked for would make the
    /// stream differ from the `ffmpeg` CLI's with the same settings).
    init?(settings: H264Encoder.Settings, control: BitRateControl?) {
        guard let average = settings.averageBitRate, control != nil || settings.dataRateLimit != nil else { return nil }
        self.average = average
        maxRate = settings.dataRateLimit?.maxBitRate ?? average
        bufferSize = settings.dataRateLimit?.bufferSize ?? average
        applied = average
        self.control = control
    }

    /// The settings the encoder opens with: the given ones, with the VBV the plan needs.
    func opening(_ settings: H264Encoder.Settings) -> H264Encoder.Settings {
        var opened = settings
        opened.dataRateLimit = (maxBitRate: maxRate, bufferSize: bufferSize)
        return opened
    }

    /// The target wanted now: the control's, else the one set directly, else the settings'.
    var wanted: Int { control?.bitRate ?? requested ?? average }

    /// The values to write when the wanted target differs from the applied one (and marks it applied);
    /// `nil` when nothing changed.
    mutating func change() -> Values? {
        let target = wanted
        guard target != applied else { return nil }
        applied = target
        return values(for: target)
    }

    /// The context values for `target`: the average, and the maximum rate and buffer scaled with it.
    func values(for target: Int) -> Values {
        Values(
            bitRate: Int64(max(1_000, target)),
            maxRate: Int64(max(1_000, Self.scale(maxRate, by: target, over: average))),
            bufferSize: Int32(clamping: max(1_000, Self.scale(bufferSize, by: target, over: average))))
    }

    /// `value × numerator / denominator`, rounded to nearest, without overflow.
    static func scale(_ value: Int, by numerator: Int, over denominator: Int) -> Int {
        guard denominator > 0 else { return value }
        let product = Int128(value) * Int128(numerator)
        return Int(clamping: (product * 2 + Int128(denominator)) / (2 * Int128(denominator)))
    }
}
