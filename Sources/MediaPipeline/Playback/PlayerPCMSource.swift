import MediaCore

/// What a player's audio engine (``PlayerEngine``) reads: decoded PCM with sample-accurate seeking,
/// frame 0 being the first valid frame (priming dropped). ``AudioFile`` for ``AudioPlayer``,
/// ``DemuxedAudioTrack`` for ``MediaPlayer``.
protocol PlayerPCMSource: AnyObject {
    /// The format of the packets (their rate and channels are the PCM's).
    var fileFormat: AudioFormat { get }
    /// The next interleaved 32-bit float PCM, or `nil` at the end.
    func read() throws -> MediaSample?
    /// Moves to valid frame `frame`, so that ``read()`` returns it first.
    func seek(toFrame frame: Int64) throws(MediaError)
}

extension AudioFile: PlayerPCMSource {}
