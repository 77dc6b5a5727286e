import MediaCore

/// The check a PCM file muxer makes of each sample, with WAVMuxer's errors: interleaved PCM of a
/// supported type, the first sample's format, and as many bytes as frames × frame size.
enum InterleavedPCMInput {
    /// What the muxers take, for their errors.
    static let expected = "interleaved PCM (u8, s16, s24, s32, f32 or f64)"

    /// The audio format and sample type of `sample`.
    ///
    /// - Parameters:
    ///   - stage: the muxer's name, for the errors (made only for one: `name` builds a string).
    ///   - format: the first sample's format, once there was one.
    /// - Throws: ``/MediaCore/MediaError/Code/formatMismatch`` for a sample that is not interleaved PCM or whose format
    ///   differs from `format`; ``/MediaCore/MediaError/Code/invalidData`` when its byte count is not its frame count
    ///   times the frame size.
    static func check(
        _ sample: MediaSample, stage: @autoclosure () -> String, established format: AudioFormat?
    ) throws(MediaError) -> (audio: AudioFormat, type: PCMSampleType) {
        guard let audio = sample.format.audio, let pcm = audio.pcm, pcm.isInterleaved else {
            throw MediaError.formatMismatch(stage: stage(), expected: expected, actual: sample.format)
        }
        if let format, audio != format {
            throw MediaError(
                .formatMismatch, "\(stage()) started with \(format) and takes no other format, but was given \(audio)")
        }
        try checkByteCount(sample, frameBytes: audio.bytesPerFrame, stage: stage())
        return (audio, pcm.sampleType)
    }

    /// Checks that `sample` is one buffer of its frame count times `frameBytes` bytes.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidData`` naming `stage` otherwise.
    static func checkByteCount(
        _ sample: MediaSample, frameBytes: Int, stage: @autoclosure () -> String
    ) throws(MediaError) {
        let (expectedBytes, overflow) = sample.frameCount.multipliedReportingOverflow(by: frameBytes)
        guard sample.planeCount <= 1, sample.frameCount >= 0, !overflow, sample.byteCount == expectedBytes else {
            throw MediaError(
                .invalidData,
                "\(stage()) was given a sample of \(count: sample.frameCount, "frame") of \(count: frameBytes, "byte") holding \(count: sample.byteCount, "byte")"
            )
        }
    }
}
