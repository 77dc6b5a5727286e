/// A sink that can say how many bytes it has sent or written (``LiveStreamSink`` reports it as
/// ``LiveStreamSink/Stats/sentBytes``).
public protocol SentByteCounting {
    /// Bytes handed to the output so far.
    var bytesWritten: Int64 { get }
}
