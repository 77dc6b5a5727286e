/// Servers that receive streams: ``IngestServer`` accepts RTMP publishers and hands each published
/// stream to a graph of the caller's.
public enum MediaIngest {}
