/// Multiplies float32 PCM by a gain per channel that follows a ``LinearRamp`` frame by frame: the
/// arithmetic ``GainStage`` and ``PanStage`` share.
enum RampedGain {
    /// `sample` with every value multiplied by `gain(rampValue, channel)`, where `rampValue` is the
    /// ramp's value for that frame (one ``LinearRamp/next()`` per frame, the same for every channel).
    /// The output keeps the input's format, timing, flags and trims, and reuses `recycler`'s buffers.
    static func apply(
        _ sample: MediaSample,
        format: AudioFormat,
        ramp: inout LinearRamp,
        recycler: inout SampleRecycler,
        gain: (Double, Int) -> Float
    ) -> MediaSample {
        let frames = sample.frameCount
        let channels = format.channelCount
        let interleaved = format.pcm?.isInterleaved ?? true
        let start = ramp
        var end = ramp
        let output = recycler.make(
            format: sample.format, timing: sample.timing, frameCount: frames, flags: sample.flags,
            trimAtStart: sample.trimAtStart, trimAtEnd: sample.trimAtEnd, planeCount: format.planeCount
        ) { plane, bytes in
            sample.withUnsafeBytes(plane: plane) { input in
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[0..<frames * format.bytesPerFrame]))
            }
            var local = start
            bytes.withUnsafeMutableBytes { out in
                if interleaved {
                    for frame in 0..<frames {
                        let value = local.next()
                        for channel in 0..<channels {
                            let index = frame * channels + channel
                            out.storeFloat32(out.float32(at: index) * gain(value, channel), at: index)
                        }
                    }
                } else {
                    for frame in 0..<frames {
                        out.storeFloat32(out.float32(at: frame) * gain(local.next(), plane), at: frame)
                    }
                }
            }
            end = local
        }
        ramp = end
        return output
    }
}
