import Glibc
import MediaCore

/// The index files of a ``SegmentedRecorder``'s folder, `index.json` and `index.m3u8`, each written to a
/// temporary file and renamed over the old one, so that a reader (or a process killed mid-write) never
/// sees half an index.
enum SegmentIndexFiles {
    /// Makes `path` (and its parents) unless it exists.
    static func makeDirectory(_ path: String) throws(MediaError) {
        var built = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o755) != 0, errno != EEXIST {
                throw MediaError(.io, "cannot make the folder \(built): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Rewrites both index files for `segments`.
    static func write(
        segments: [SegmentedRecorder.Segment], deleted: Int, complete: Bool, into directory: String
    ) throws(MediaError) {
        try replace(directory + "/index.json", with: json(segments, complete: complete))
        try replace(directory + "/index.m3u8", with: playlist(segments, deleted: deleted, complete: complete))
    }

    /// `{"complete": …, "segments": [{"index", "file", "start", "duration", "bytes", "followsGap"}, …]}`, times in
    /// seconds with microseconds, and the exact rational times as `"startExact"`/`"durationExact"`
    /// (`value/timescale`).
    static func json(_ segments: [SegmentedRecorder.Segment], complete: Bool) -> String {
        let rows = segments.map { segment in
            "    {\"index\": \(segment.index), \"file\": \"\(segment.file)\", \"start\": \(decimal(segment.start)), "
                + "\"duration\": \(decimal(segment.duration)), \"startExact\": \"\(exact(segment.start))\", "
                + "\"durationExact\": \"\(exact(segment.duration))\", \"bytes\": \(segment.bytes), "
                + "\"followsGap\": \(segment.followsGap)}"
        }
        return "{\n  \"complete\": \(complete),\n  \"segments\": [\n" + rows.joined(separator: ",\n") + "\n  ]\n}\n"
    }

    /// An HLS media playlist of `segments` (version 3, `EXTINF` with microseconds).
    static func playlist(_ segments: [SegmentedRecorder.Segment], deleted: Int, complete: Bool) -> String {
        let longest = segments.map { $0.duration.seconds ?? 0 }.max() ?? 0
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n"
        // RFC 8216 4.3.3.1: each EXTINF, rounded to the nearest integer, is at most the target duration.
        text += "#EXT-X-TARGETDURATION:\(max(1, Int(longest.rounded())))\n"
        text += "#EXT-X-MEDIA-SEQUENCE:\(deleted)\n"
        text += "#EXT-X-PLAYLIST-TYPE:\(complete ? "VOD" : "EVENT")\n"
        for segment in segments {
            if segment.followsGap { text += "#EXT-X-DISCONTINUITY\n" }
            text += "#EXTINF:\(decimal(segment.duration)),\n\(segment.file)\n"
        }
        if complete { text += "#EXT-X-ENDLIST\n" }
        return text
    }

    /// Seconds with six decimals, without Foundation's formatting.
    static func decimal(_ time: MediaTime) -> String {
        guard time.isValid, time.timescale > 0 else { return "0.000000" }
        let micro = (Int128(time.value) * 1_000_000 + Int128(time.timescale) / 2) / Int128(time.timescale)
        let sign = micro < 0 ? "-" : ""
        let magnitude = micro < 0 ? -micro : micro
        let fraction = String(magnitude % 1_000_000)
        return sign + String(magnitude / 1_000_000) + "." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    private static func exact(_ time: MediaTime) -> String { "\(time.value)/\(time.timescale)" }

    /// Writes `text` to `path` through a temporary file and a rename.
    private static func replace(_ path: String, with text: String) throws(MediaError) {
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else {
            throw MediaError(.io, "cannot write \(temporary): \(String(cString: strerror(errno)))")
        }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else {
                close(descriptor)
                throw MediaError(.io, "cannot write \(temporary): \(String(cString: strerror(errno)))")
            }
            written += count
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            throw MediaError(.io, "cannot rename \(temporary) to \(path): \(String(cString: strerror(errno)))")
        }
    }
}
