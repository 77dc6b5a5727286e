import MediaStreaming

extension ContainerMuxer {
    /// Whether `destination` is an HLS playlist path for ``init(hlsPlaylist:hls:)``: a file path (not a
    /// `scheme://` URL) whose name ends in `.m3u8`, any case. For a command line whose output is either
    /// a URL or a playlist:
    ///
    /// ```swift
    /// let muxer = ContainerMuxer.isHLSPlaylist(to)
    ///     ? try ContainerMuxer(hlsPlaylist: to, hls: HLSOptions(playlist: .live(windowSize: 6)))
    ///     : try ContainerMuxer(url: to)
    /// ```
    public static func isHLSPlaylist(_ destination: String) -> Bool {
        guard !StreamingURL.isURL(destination) else { return false }
        let name = destination.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        return name.count > ".m3u8".count && name.lowercased().hasSuffix(".m3u8")
    }
}
