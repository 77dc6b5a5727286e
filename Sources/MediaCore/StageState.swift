/// Where a stage or sink is in its life cycle, as ``CheckedStage``, ``CheckedSink`` and
/// ``CheckedMultiTrackSink`` track it.
public enum StageState: Sendable, Hashable {
    /// Taking samples.
    case open
    /// `finish` has been called (whether or not it threw).
    case finished
    /// A call threw; only a sink may still be finished.
    case failed
}
