public import MediaStreaming

extension StreamingURL {
    /// The container the scheme carries: FLV for RTMP, MPEG-TS for the others.
    public var defaultFormat: ContainerFormat { scheme.hasPrefix("rtmp") ? .flv : .mpegTS }

    /// Options for `avio_open2` the URL does not set itself: SRT's `linger`.
    var protocolOptions: [String: String] {
        guard scheme == "srt", !query.keys.contains("linger") else { return [:] }
        return ["linger": "5"]
    }
}
