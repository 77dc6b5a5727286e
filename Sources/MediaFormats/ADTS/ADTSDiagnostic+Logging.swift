import Logging
public import MediaCore

extension ADTSDiagnostic {
    /// The diagnostic as reported by `stage`: a warning when audio was lost or bytes skipped
    /// (`resynchronized`, `truncatedFrame`, `truncatedID3Tag`, `trailingBytesSkipped`, `unsupportedFrame`),
    /// a note (`.info`) for a skipped ID3v2 tag or a format change. Metadata: `stage`, `code` (the case
    /// name), `byteOffset`, and `count` (the bytes skipped or declared) or `sampleIndex` (the frame index)
    /// where they apply.
    public func mediaDiagnostic(stage: String) -> MediaDiagnostic {
        let (level, code, key, value): (Logger.Level, String, String, Int)
        switch self {
        case .id3TagSkipped(_, let length):
            (level, code, key, value) = (.info, "id3TagSkipped", DiagnosticKey.count, length)
        case .resynchronized(_, let skipped):
            (level, code, key, value) = (.warning, "resynchronized", DiagnosticKey.count, skipped)
        case .formatChanged(let index, _, _, _):
            (level, code, key, value) = (.info, "formatChanged", DiagnosticKey.sampleIndex, index)
        case .truncatedFrame(_, let declared, _):
            (level, code, key, value) = (.warning, "truncatedFrame", DiagnosticKey.count, declared)
        case .truncatedID3Tag(_, let declared, _):
            (level, code, key, value) = (.warning, "truncatedID3Tag", DiagnosticKey.count, declared)
        case .trailingBytesSkipped(_, let count):
            (level, code, key, value) = (.warning, "trailingBytesSkipped", DiagnosticKey.count, count)
        case .unsupportedFrame(_, let length, _):
            (level, code, key, value) = (.warning, "unsupportedFrame", DiagnosticKey.count, length)
        }
        let metadata = [
            DiagnosticKey.stage: stage, DiagnosticKey.code: code, DiagnosticKey.byteOffset: String(byteOffset),
            key: String(value)
        ]
        return MediaDiagnostic(level, description, metadata: metadata)
    }
}
