import MediaPipeline

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
