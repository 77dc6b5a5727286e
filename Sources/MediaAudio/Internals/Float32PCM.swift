/// The one PCM layout the playback stages take, float32 (interleaved `f32` or planar `f32p`), and
/// portable access to its little-endian values in a sample's byte buffers.
enum Float32PCM {
    /// `sample`'s audio format when it is float32 PCM with at least one channel, a positive rate and
    /// buffers as long as its frame count says.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/formatMismatch`` for anything else (other PCM layouts, compressed
    ///   audio, video), naming both formats; ``/MediaCore/MediaError/Code/invalidData`` for short buffers.
    ///   `stage` (the stage's name) is computed only for the error: `MediaStage.name` formats a
    ///   string, which allocates, and this runs once per buffer.
    static func format(of sample: MediaSample, stage: @autoclosure () -> String) throws(MediaError) -> AudioFormat {
        guard case .audio(let audio) = sample.format, audio.pcm?.sampleType == .f32,
            audio.channelCount >= 1, audio.sampleRate > 0
        else {
            throw MediaError.formatMismatch(
                stage: stage(), expected: "32-bit float linear PCM (f32 or f32p)", actual: sample.format)
        }
        try sample.validatePCMLayout()
        return audio
    }
}

extension UnsafeRawBufferPointer {
    /// The little-endian float32 at value index `index` (byte offset `4 × index`), any alignment.
    @inline(__always)
    func float32(at index: Int) -> Float {
        Float(bitPattern: UInt32(littleEndian: loadUnaligned(fromByteOffset: index &* 4, as: UInt32.self)))
    }
}

extension UnsafeMutableRawBufferPointer {
    /// Stores `value` as a little-endian float32 at value index `index` (byte offset `4 × index`).
    @inline(__always)
    func storeFloat32(_ value: Float, at index: Int) {
        storeBytes(of: value.bitPattern.littleEndian, toByteOffset: index &* 4, as: UInt32.self)
    }

    /// The little-endian float32 at value index `index`, any alignment.
    @inline(__always)
    func float32(at index: Int) -> Float {
        Float(bitPattern: UInt32(littleEndian: loadUnaligned(fromByteOffset: index &* 4, as: UInt32.self)))
    }
}
