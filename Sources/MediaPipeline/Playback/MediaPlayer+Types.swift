public import MediaCore

extension MediaPlayer {
    /// What a ``MediaPlayer`` tells its observers: `AVPlayer`'s status, time-control and item
    /// notifications in one stream.
    public enum Event: Sendable, Hashable {
        /// The file is open and its streams can be played (`AVPlayerItem.Status.readyToPlay`).
        case ready
        /// Playback started or resumed.
        case playing
        /// Playback paused.
        case paused
        /// The audio output ran dry: what was heard has a gap (`AVPlayerItemPlaybackStalled`).
        case stalled
        /// Playback reached the end of the file (all its loops; `AVPlayerItemDidPlayToEndTime`).
        case ended
        /// Reading, decoding or an output failed; playback ended there (`AVPlayerItem.Status.failed`).
        case failed(MediaError)
    }

    /// How a seek lands.
    public enum SeekMode: Sendable, Hashable {
        /// On the time asked: the first frame shown is the one on screen at that time, the audio
        /// starts at its sample (`seek(to:toleranceBefore: .zero, toleranceAfter: .zero)`).
        case exact
        /// On the video's keyframe at or before the time asked, audio and video together: faster, as
        /// `AVPlayer.seek(to:)` with its default tolerance (and ffplay) land. Without video, as `exact`.
        case keyframe
    }

    /// Where a player shows its video: a ``/MediaCore/PresentingSink`` made for each run, which presents
    /// each frame at its time on the clock the player hands it (the audio being heard, or a host clock
    /// when there is no audio).
    ///
    /// ```swift
    /// import MediaDisplay
    /// let window = MediaPlayer.VideoOutput.presenting { clock in
    ///     try VideoPreviewSink(title: "movie.mp4", pacing: .custom(now: clock), queueCapacity: 16)
    /// }
    /// ```
    public struct VideoOutput: Sendable {
        let make: @Sendable (_ clock: @escaping @Sendable () -> MediaTime?) throws -> any PresentingSink

        /// An output `make` opens when playback starts, given the player's clock: the timeline time
        /// being heard (the frames' presentation times are on it), `nil` while it is not known yet.
        public static func presenting(
            _ make: @escaping @Sendable (_ clock: @escaping @Sendable () -> MediaTime?) throws -> any PresentingSink
        ) -> VideoOutput {
            VideoOutput(make: make)
        }
    }

    /// A periodic time observer's handle, for ``MediaPlayer/removeTimeObserver(_:)``.
    public struct TimeObserver: Sendable, Hashable {
        let id: Int
    }
}
