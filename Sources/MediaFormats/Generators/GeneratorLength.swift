public import MediaCore

/// How long a generator (``ToneGenerator``, ``TestPatternGenerator``) runs: a number of frames, a
/// duration, or for ever. Each generator says how it rounds a duration to its frames.
public enum GeneratorLength: Sendable, Hashable {
    /// Exactly this many frames (0 or more).
    case frames(Int64)
    /// This long, in frames as the generator rounds it.
    case duration(MediaTime)
    /// For ever: the generator's `next()` never returns `nil`.
    case unlimited

    /// This long, as a Swift `Duration`: `.duration(.seconds(5))`, `.duration(.milliseconds(250))`.
    /// The case that takes a ``/MediaCore/MediaTime``, given ``/MediaCore/MediaTime/init(_:)`` of the
    /// duration (exact to the nanosecond), then rounded to frames as that case says.
    @_disfavoredOverload
    public static func duration(_ duration: Duration) -> GeneratorLength { .duration(MediaTime(duration)) }
}
