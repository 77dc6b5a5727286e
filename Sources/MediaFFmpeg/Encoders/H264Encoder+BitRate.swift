public import MediaCore

extension H264Encoder {
    /// Changes the average bit rate of the running encoder, from the next frame on: what setting
    /// `kVTCompressionPropertyKey_AverageBitRate` on a running `VTCompressionSession` does. Call it on
    /// the encoder's own thread (between ``VideoEncoder/process(_:into:)`` calls); from another thread, write the
    /// encoder's ``bitRateControl`` instead (this method writes it too, when there is one).
    ///
    /// How: before each frame the encoder compares the target with the one it applied last and, when it
    /// changed, writes `AVCodecContext.bit_rate` and the VBV's `rc_max_rate` and `rc_buffer_size`
    /// scaled by the same factor (their ratios to the average stay the settings'); libx264 re-reads them
    /// and calls `x264_encoder_reconfig` (FFmpeg 5.1 `libx264.c`, `reconfig_encoder`). The stream stays
    /// one valid stream (same SPS/PPS, no forced keyframe); x264's VBV moves to the new rate within
    /// about one buffer length (1 s by default).
    ///
    /// The encoder can change its rate only when it was created in average-bit-rate mode with a VBV:
    /// - with a ``/MediaCore/BitRateControl``: always (it opens with the settings' ``VideoEncoderSettings/dataRateLimit``, or,
    ///   without one, with a maximum rate equal to the average and a 1-second buffer: x264's CBR-like
    ///   mode, which OBS uses for streaming);
    /// - without one: when ``VideoEncoderSettings/averageBitRate`` and ``VideoEncoderSettings/dataRateLimit`` are both set.
    ///
    /// x264 moves its long-term average only in its CBR-like mode (maximum rate = average). With a
    /// maximum rate above the average, only the VBV's cap moves with the target, so the stream settles
    /// near the lower of the original average and the scaled maximum rate: give the maximum rate equal
    /// to the average (or no ``VideoEncoderSettings/dataRateLimit``) for a rate that follows the target both ways.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` when `bitRate` is outside
    ///   ``/MediaCore/BitRateControl/validRange``, or when the encoder cannot change its rate (constant
    ///   quality, or an average without a VBV and without a control: x264 refuses to switch a VBV on
    ///   while running, so the change would be ignored).
    public func setAverageBitRate(_ bitRate: Int) throws(MediaError) {
        guard BitRateControl.validRange.contains(bitRate) else {
            throw MediaError(
                .invalidArgument, "H264Encoder average bit rate \(bitRate) is outside \(BitRateControl.validRange)")
        }
        guard state.ratePlan != nil else {
            throw MediaError(
                .invalidArgument,
                "H264Encoder can change its bit rate only with averageBitRate and either dataRateLimit or a BitRateControl (x264 changes its rate only under a VBV it started with)"
            )
        }
        if let control = bitRateControl {
            try control.setBitRate(bitRate)
        } else {
            state.ratePlan?.requested = bitRate
        }
    }

    /// The average bit rate the encoder encodes the next frame at: the last target applied or about to
    /// be (the control's, or ``setAverageBitRate(_:)``'s), else ``VideoEncoderSettings/averageBitRate``; `nil` in
    /// constant-quality mode.
    public var averageBitRate: Int? {
        state.ratePlan?.wanted ?? settings.averageBitRate
    }
}
