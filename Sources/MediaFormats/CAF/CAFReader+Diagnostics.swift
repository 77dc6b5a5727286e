import Logging
import MediaCore

extension CAFReader {
    /// What parsing worked around: chunks skipped, a `data` size of -1, and `data` bytes after the last
    /// whole frame (PCM: `frameBytes` given) or packet that the reader does not deliver.
    static func diagnose(
        _ chunks: [(type: String, offset: Int64, size: Int64)], data: (offset: Int64, size: Int64, isOpen: Bool),
        delivered: Int64, partialFrameOf frameBytes: Int?
    ) -> [MediaDiagnostic] {
        var found: [MediaDiagnostic] = []
        let known: Set<String> = ["desc", "kuki", "pakt", "chan", "info", "data"]
        for chunk in chunks where !known.contains(chunk.type) {
            found.append(
                diagnostic(
                    .debug, "chunkSkipped", "Skipped the \(count: chunk.size, "byte") '\(chunk.type)' chunk.",
                    at: chunk.offset, count: chunk.size))
        }
        if data.isOpen {
            found.append(
                diagnostic(
                    .info, "openDataSize", "CAF 'data' chunk declares a size of -1; read to the end of the file.",
                    at: data.offset - 16, count: nil))
        }
        let unread = data.size - delivered
        if unread > 0 {
            let at = data.offset + delivered
            if let frameBytes {
                found.append(
                    diagnostic(
                        .warning, "partialFrameDropped",
                        "CAF 'data' ends \(count: unread, "byte") into a \(frameBytes)-byte frame; "
                            + "the partial frame is dropped.",
                        at: at, count: unread))
            } else {
                found.append(
                    diagnostic(
                        .warning, "trailingBytesIgnored",
                        "CAF 'data' holds \(count: unread, "byte") after its last whole packet; they are ignored.",
                        at: at, count: unread))
            }
        }
        return found
    }

    private static func diagnostic(
        _ level: Logger.Level, _ code: String, _ message: String, at offset: Int64, count: Int64?
    ) -> MediaDiagnostic {
        var metadata = [
            DiagnosticKey.stage: "CAFReader", DiagnosticKey.code: code, DiagnosticKey.byteOffset: String(offset)
        ]
        if let count { metadata[DiagnosticKey.count] = String(count) }
        return MediaDiagnostic(level, message, metadata: metadata)
    }
}
