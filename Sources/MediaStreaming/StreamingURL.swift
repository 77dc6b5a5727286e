public import MediaCore

/// A network destination for `ContainerMuxer`: the URL's scheme picks libavformat's protocol and,
/// unless a format is given, the container (`AVAssetWriter` has no network output; this is what
/// `ffmpeg -f flv rtmp://…` or GStreamer's `rtmpsink`/`srtsink`/`udpsink` do).
///
/// | scheme                | protocol                         | container |
/// |-----------------------|----------------------------------|-----------|
/// | `rtmp://`, `rtmps://` | RTMP (over TLS for `rtmps`)      | FLV       |
/// | `srt://`              | SRT (caller or listener)         | MPEG-TS   |
/// | `udp://`              | UDP datagrams (unicast/multicast)| MPEG-TS   |
/// | `tcp://`              | one TCP connection               | MPEG-TS   |
///
/// HLS is not a URL here: it is written to a folder, a playlist path ending in `.m3u8`
/// (`ContainerMuxer.init(hlsPlaylist:hls:)`; `ContainerMuxer.isHLSPlaylist(_:)` tells the two apart).
///
/// Options ride in the URL's query, which libavformat parses (`srt://host:port?latency=200000&passphrase=…&mode=caller`,
/// `tcp://host:port?send_buffer_size=65536`, `udp://host:port?pkt_size=1316`). For SRT the muxer adds
/// `linger` (seconds the socket keeps sending after it is closed) when the URL does not set it, so the
/// tail of the stream is not lost at the end. MediaFFmpeg gives the type its `defaultFormat`, the
/// container of the table as a `ContainerFormat`.
///
/// - Refuses: a string that is not `scheme://…`, or a scheme other than the four above:
///   ``/MediaCore/MediaError/Code/invalidArgument`` naming the URL.
public struct StreamingURL: Sendable, Hashable, CustomStringConvertible {
    /// The URL as given (with its query).
    public let url: String
    /// The scheme, lower case: `rtmp`, `rtmps`, `srt`, `udp` or `tcp`.
    public let scheme: String

    /// The schemes a `ContainerMuxer` can stream to.
    public static let schemes = ["rtmp", "rtmps", "srt", "udp", "tcp"]

    /// Parses `url`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` naming the URL when it has no
    ///   `scheme://` or a scheme this library does not stream to.
    public init(_ url: String) throws(MediaError) {
        guard let found = Self.scheme(of: url) else {
            throw MediaError(.invalidArgument, "\(url) is not a URL (scheme://host:port/…)")
        }
        let scheme = found.lowercased()
        guard Self.schemes.contains(scheme) else {
            throw MediaError(
                .invalidArgument,
                "cannot stream to \(url): unknown scheme \(scheme) (streams go to \(Self.schemes.map { $0 + "://" }.joined(separator: ", ")))"
            )
        }
        self.url = url
        self.scheme = scheme
    }

    /// Whether `string` looks like a URL of a scheme (`x://`), as opposed to a file path.
    public static func isURL(_ string: String) -> Bool { scheme(of: string) != nil }

    /// The part before `://`, when it is a non-empty scheme (letters, digits, `+ - .`).
    private static func scheme(of string: String) -> Substring? {
        let characters = Array(string.utf8)
        guard let colon = characters.firstIndex(of: UInt8(ascii: ":")), colon > 0, characters.count > colon + 2,
            characters[colon + 1] == UInt8(ascii: "/"), characters[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        let scheme = string.utf8.prefix(colon)
        let allowed = scheme.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
        return allowed ? Substring(scheme) : nil
    }

    /// The query's `key=value` pairs (MediaFFmpeg's network destination reads them, hence `package`).
    package var query: [String: String] {
        guard let mark = url.firstIndex(of: "?") else { return [:] }
        var pairs: [String: String] = [:]
        for item in url[url.index(after: mark)...].split(separator: "&") {
            let parts = item.split(separator: "=", maxSplits: 1)
            if let key = parts.first { pairs[String(key)] = parts.count > 1 ? String(parts[1]) : "" }
        }
        return pairs
    }

    /// The URL.
    public var description: String { url }
}
