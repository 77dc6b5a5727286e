// The one warning line aac-encoder and caf-recorder print after a run whose reader worked around
// damage: how many times it resynchronised and how many bytes it skipped, or what a WAV file needed,
// as the ffmpeg CLI ends a run on a damaged input with a count.
import Logging
public import MediaCore
public import MediaFormats

/// `<example>: warning: …` with the counts of what a reader skipped or worked around, or `nil` when it
/// needed nothing. The individual warnings go to the logger as they happen; this line sums them up.
public enum InputWarnings {
    /// The counts of an ADTS reader's diagnostics: resynchronisations, bytes skipped, frames dropped.
    public static func line(example: String, path: String, adts reader: ADTSReader) -> String? {
        var resyncs = 0
        var skipped = 0
        var dropped = 0
        for diagnostic in reader.diagnostics {
            switch diagnostic {
            case .resynchronized(_, let bytes):
                resyncs += 1
                skipped += bytes
            case .trailingBytesSkipped(_, let bytes): skipped += bytes
            case .unsupportedFrame(_, let length, _):
                skipped += length
                dropped += 1
            case .truncatedFrame: dropped += 1
            default: break
            }
        }
        guard resyncs + skipped + dropped > 0 else { return nil }
        return
            "\(example): warning: \(path): resynchronised \(count: resyncs, "time"), skipped \(count: skipped, "byte"), "
            + "dropped \(count: dropped, "damaged frame")"
    }

    /// The counts of a run's warnings (a graph's or pipeline's `warningCount` and `warnings`, the first 16):
    /// how many, and for each code among them how many times and, where the warnings carry a `count`
    /// (bytes skipped, frames missing), its sum. `nil` when there were none.
    ///
    /// `transcode: warning: in.mp4: worked around 3 problems (resynchronized ×2 count 4103, framesMissing ×1
    /// count 5)`.
    public static func line(example: String, path: String, warningCount: Int, warnings: [MediaDiagnostic]) -> String? {
        guard warningCount > 0 else { return nil }
        var codes: [(code: String, times: Int, count: Int?)] = []
        for warning in warnings {
            let code = warning[DiagnosticKey.code] ?? warning[DiagnosticKey.stage] ?? "warning"
            let count = warning[DiagnosticKey.count].flatMap { Int($0) }
            if let i = codes.firstIndex(where: { $0.code == code }) {
                codes[i].times += 1
                if let count {
                    // Counts come from input (a size a header declares): the sum saturates.
                    let (sum, overflow) = (codes[i].count ?? 0).addingReportingOverflow(count)
                    codes[i].count = overflow ? .max : sum
                }
            } else {
                codes.append((code, 1, count))
            }
        }
        let kinds = codes.map { "\($0.code) ×\($0.times)" + ($0.count.map { " count \($0)" } ?? "") }
        let more = warningCount > warnings.count ? ", and \(warningCount - warnings.count) more" : ""
        return "\(example): warning: \(path): worked around \(count: warningCount, "problem") "
            + "(\(kinds.joined(separator: ", "))\(more))"
    }

    /// ``line(example:path:warningCount:warnings:)`` over the warnings (and worse) among `diagnostics`.
    public static func line(example: String, path: String, diagnostics: [MediaDiagnostic]) -> String? {
        let warnings = diagnostics.filter { $0.level >= .warning }
        return line(example: example, path: path, warningCount: warnings.count, warnings: warnings)
    }

    /// The counts of a WAV reader's diagnostics, by kind, and the frames it delivered of those declared.
    public static func line(example: String, path: String, wav reader: WAVReader) -> String? {
        guard !reader.diagnostics.isEmpty else { return nil }
        var kinds: [String] = []
        for diagnostic in reader.diagnostics where !kinds.contains(diagnostic.code.description) {
            kinds.append(diagnostic.code.description)
        }
        return "\(example): warning: \(path): worked around \(count: reader.diagnostics.count, "problem") "
            + "(\(kinds.joined(separator: ", "))); read \(count: Int(reader.framesRead), "frame")"
    }
}
