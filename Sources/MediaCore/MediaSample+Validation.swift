extension MediaSample {
    /// Checks that a PCM sample's buffers hold what its format and ``frameCount`` say: one plane per
    /// channel (planar) or one plane (interleaved), each at least `frameCount × bytes per frame` long.
    ///
    /// Stages that hand buffers to C code call this first, so that a malformed sample is an error,
    /// never an out-of-bounds read. Throws ``MediaError/Code/invalidData`` naming the plane and sizes.
    public func validatePCMLayout() throws(MediaError) {
        guard case .audio(let audio) = format, audio.pcm != nil else { return }
        guard frameCount >= 0 else {
            throw MediaError(.invalidData, "PCM sample has a negative frame count \(frameCount)")
        }
        guard planes.count == audio.planeCount else {
            throw MediaError(.invalidData, "\(audio) sample has \(planes.count) planes but its format needs \(audio.planeCount)")
        }
        let needed = frameCount * audio.bytesPerFrame
        for (index, plane) in planes.enumerated() where plane.count < needed {
            throw MediaError(.invalidData, "PCM plane \(index) holds \(plane.count) bytes but \(frameCount) frames of \(audio) need \(needed)")
        }
    }
}
