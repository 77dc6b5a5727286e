import MediaCore

/// What an SRT caller's stream ID asks for, as the ingest server routes it: SRT's access-control syntax
/// (`#!::r=live/cam1,m=publish`, Haivision's "SRT Access Control" guidelines) or a plain name
/// (`live/cam1`, `cam1`). The resource's last `/` splits the application from the key; a name without
/// one has an empty application.
struct SRTStreamID: Equatable {
    var app: String
    var key: String
    /// Whether the caller publishes: `m=publish`, `m=bidirectional` or no `m` (this server only
    /// receives, so a caller that does not say is taken to publish); `false` for `m=request`.
    var publishes: Bool

    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for an empty name or a malformed
    ///   access-control string (an entry without `=`, no `r`), ``/MediaCore/MediaError/Code/limitExceeded``
    ///   for a key over `keyLimit` UTF-8 bytes.
    init(_ text: String, keyLimit: Int) throws(MediaError) {
        var resource = text
        publishes = true
        if text.hasPrefix("#!::") {
            var entries: [String: String] = [:]
            for entry in text.dropFirst(4).split(separator: ",", omittingEmptySubsequences: true) {
                guard let equals = entry.firstIndex(of: "=") else {
                    throw MediaError(.invalidArgument, "stream ID '\(text)': the entry '\(entry)' has no '='")
                }
                entries[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
            }
            guard let named = entries["r"] else {
                throw MediaError(.invalidArgument, "stream ID '\(text)' names no resource (r=...)")
            }
            resource = named
            publishes = entries["m"].map { $0 != "request" } ?? true
        }
        if let slash = resource.lastIndex(of: "/") {
            app = String(resource[..<slash])
            key = String(resource[resource.index(after: slash)...])
        } else {
            app = ""
            key = resource
        }
        guard !key.isEmpty else { throw MediaError(.invalidArgument, "stream ID '\(text)' has no stream name") }
        guard key.utf8.count <= keyLimit else {
            throw MediaError(.limitExceeded, "the stream name is longer than \(keyLimit) bytes")
        }
    }
}
