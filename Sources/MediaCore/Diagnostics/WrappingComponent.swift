/// A source, stage or sink that wraps another one to pace, limit or adapt it (``RealTimeSource``, for
/// example) and reports nothing of its own.
///
/// ``Pipeline`` and ``MediaGraph`` look through a wrapper when they hand their collecting logger out, so
/// that what the wrapped component reports (a reader's skipped bytes, a decoder's concealed frames) still
/// reaches the run's logger and warning counts (``MediaGraph/Progress/warnings``). Without it, wrapping a
/// reader to stream it live would silence the reader.
public protocol WrappingComponent {
    /// The component this one wraps (a source, stage or sink, itself possibly a wrapper).
    var wrappedComponent: Any { get }
}
