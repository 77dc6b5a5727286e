import Logging
public import MediaCore

extension AudioFileStreamDiagnostic {
    /// The diagnostic as reported by `stage`: a warning when audio was skipped or is missing
    /// (`resynchronized`, `truncatedPacket`, `trailingBytesSkipped`, `dataTruncated`, `frameCountDisagrees`), a
    /// note (`.info`) for
    /// a skipped tag or a parser's note, `.debug` for a skipped chunk. Metadata: `stage`, `code` (the
    /// case name), `byteOffset`, and `count` (bytes skipped, the bytes declared, or the frames a header claims)
    /// where it applies.
    public func mediaDiagnostic(stage: String) -> MediaDiagnostic {
        let (level, code, count): (Logger.Level, String, Int64?)
        switch self {
        case .chunkSkipped(_, _, let size): (level, code, count) = (.debug, "chunkSkipped", size)
        case .tagSkipped(_, _, let length): (level, code, count) = (.info, "tagSkipped", length)
        case .resynchronized(_, let skipped): (level, code, count) = (.warning, "resynchronized", skipped)
        case .truncatedPacket(_, let declared, _): (level, code, count) = (.warning, "truncatedPacket", Int64(declared))
        case .trailingBytesSkipped(_, let skipped): (level, code, count) = (.warning, "trailingBytesSkipped", skipped)
        case .dataTruncated(_, let declared, _): (level, code, count) = (.warning, "dataTruncated", declared)
        case .frameCountDisagrees(let claimed, _, _): (level, code, count) = (.warning, "frameCountDisagrees", claimed)
        case .note: (level, code, count) = (.info, "note", nil)
        }
        var metadata = [
            DiagnosticKey.stage: stage, DiagnosticKey.code: code, DiagnosticKey.byteOffset: String(byteOffset)
        ]
        if let count { metadata[DiagnosticKey.count] = String(count) }
        return MediaDiagnostic(level, description, metadata: metadata)
    }
}
