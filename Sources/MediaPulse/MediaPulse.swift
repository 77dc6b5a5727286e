// MediaPulse's types take and give MediaCore's vocabulary (`MediaSample`, `AudioFormat`, `MediaError`,
// `MediaClock`): importing MediaPulse is enough to use them.
@_exported public import MediaCore
