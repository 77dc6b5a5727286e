internal import CMediaFFmpeg
public import MediaCore

extension ContainerDemuxer {
    /// How a network input (``init(url:options:)``) is opened and read.
    public struct NetworkOptions: Sendable {
        /// How RTSP carries the media: interleaved in the TCP connection (the default: it crosses
        /// firewalls and NAT, and loses nothing), or over UDP (lower latency; packets may be lost).
        public enum RTSPTransport: String, Sendable {
            /// The media interleaved in the RTSP connection.
            case tcp
            /// The media in RTP packets over UDP.
            case udp
        }

        /// How long opening may take: connecting, the protocol's handshake and reading enough to know
        /// the streams (`avformat_find_stream_info`).
        public var openTimeout: Duration
        /// How long a read may wait for the next packet before it throws
        /// ``/MediaCore/MediaError/Code/timedOut`` (a server that went silent, a publisher that stopped).
        public var readTimeout: Duration
        /// RTSP's transport (`rtsp_transport`); ignored for other schemes.
        public var rtspTransport: RTSPTransport
        /// The libavformat input format to use instead of probing (`mpegts`, `flv`, `hls`...).
        public var formatName: String?
        /// More AVOptions for the format or the protocol, as `ffmpeg -key value -i URL` sets them
        /// (`user_agent`, `headers`, SRT's `latency`, `passphrase`...); one that neither takes is refused
        /// by name.
        public var protocolOptions: [String: String]
        /// Given from any thread, it interrupts a blocking open (which then throws
        /// ``/MediaCore/MediaError/Code/cancelled``) or read (the input then ends: the sources return
        /// `nil`, as after the last packet) within about 0.1 s.
        public var stop: StopSignal?

        /// Options with libavformat's defaults but the timeouts (10 s each) and RTSP over TCP.
        public init(
            openTimeout: Duration = .seconds(10), readTimeout: Duration = .seconds(10),
            rtspTransport: RTSPTransport = .tcp, formatName: String? = nil, protocolOptions: [String: String] = [:],
            stop: StopSignal? = nil
        ) {
            self.openTimeout = openTimeout
            self.readTimeout = readTimeout
            self.rtspTransport = rtspTransport
            self.formatName = formatName
            self.protocolOptions = protocolOptions
            self.stop = stop
        }
    }

    /// The URL schemes ``init(url:options:)`` opens.
    public static let networkSchemes: Set<String> = [
        "http", "https", "rtsp", "rtsps", "rtmp", "rtmps", "rtmpt", "srt", "udp", "tcp"
    ]

    /// Opens a network input: an `http(s)://` file or HLS playlist (`.m3u8`), an `rtsp://` camera or
    /// server, an `rtmp://` stream to play, an `srt://` caller or listener (`?mode=listener`), `udp://`
    /// or `tcp://` MPEG-TS. Blocking calls give up after the options' timeouts, or when their stop
    /// signal is given.
    ///
    /// Errors name the URL without its user information or SRT passphrase. An SRT peer that closes (or
    /// is lost) ends the input, as the last packet of a file does: libsrt gives FFmpeg no other way to
    /// tell a close from a failure.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for another scheme (a file: use
    ///   ``init(path:)``) or an option nothing takes; ``/MediaCore/MediaError/Code/timedOut`` when
    ///   opening took longer than ``NetworkOptions/openTimeout``; ``/MediaCore/MediaError/Code/cancelled``
    ///   when the stop signal was given; otherwise libavformat's error (refused, not found, no format)
    ///   as in ``init(path:)``. Backed by `avformat_open_input` with an interrupt callback.
    public convenience init(url: String, options: NetworkOptions = NetworkOptions()) throws(MediaError) {
        FFmpeg.quietLogging()
        let name = "'\(Self.redacted(url))'"
        let scheme = url.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        guard url.contains("://"), Self.networkSchemes.contains(scheme) else {
            throw MediaError(
                .invalidArgument,
                "cannot open \(name) as a network input: the scheme is not one of "
                    + Self.networkSchemes.sorted().joined(separator: ", ") + " (open a file with init(path:))"
            ).inStage("ContainerDemuxer")
        }
        var formatOptions = options.protocolOptions.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        if scheme.hasPrefix("rtsp") { formatOptions.append(("rtsp_transport", options.rtspTransport.rawValue)) }
        let interrupt = NetworkInterrupt(stop: options.stop, readTimeout: Self.seconds(options.readTimeout))
        interrupt.arm(seconds: Self.seconds(options.openTimeout))
        defer { interrupt.disarm() }
        do throws(MediaError) {
            let context = try InputFormatContext(
                url: url, io: nil, formatName: options.formatName, options: formatOptions, interrupt: interrupt)
            try self.init(context: context, inputName: name)
            closeIsEnd = scheme == "srt"
        } catch {
            if let stopped = Self.interrupted(interrupt, name: name, opening: options.openTimeout) {
                throw stopped.inStage("ContainerDemuxer")
            }
            let message = error.message.hasPrefix("cannot") ? error.message : "cannot open \(name): \(error.message)"
            throw MediaError(error.code, message, ffmpegCall: error.ffmpegCall, ffmpegCode: error.ffmpegCode)
                .inStage("ContainerDemuxer")
        }
    }

    /// The error for a read `interrupt` gave up: ``/MediaCore/MediaError/Code/timedOut`` after the
    /// read timeout; `nil` when the stop signal was given (the input ends).
    func interrupted(_ interrupt: NetworkInterrupt) -> MediaError? {
        guard !interrupt.isStopped, interrupt.timedOut else { return nil }
        return MediaError(
            .timedOut,
            "no packet from \(inputName) in \(interrupt.readTimeout) s (NetworkOptions.readTimeout): "
                + "the server or publisher went silent", ffmpegCall: "av_read_frame", ffmpegCode: mp_averror_exit())
    }

    /// The error for an open `interrupt` gave up, `nil` when it did not.
    private static func interrupted(_ interrupt: NetworkInterrupt, name: String, opening: Duration) -> MediaError? {
        if interrupt.isStopped {
            return MediaError(.cancelled, "opening \(name) was stopped (NetworkOptions.stop)")
        }
        guard interrupt.timedOut else { return nil }
        return MediaError(
            .timedOut,
            "cannot open \(name): no answer in \(seconds(opening)) s (NetworkOptions.openTimeout)",
            ffmpegCall: "avformat_open_input", ffmpegCode: mp_averror_exit())
    }

    /// `url` without its user information (`user:password@`) and the value of a `passphrase`.
    public static func redacted(_ url: String) -> String {
        var text = url
        if let scheme = text.firstRange(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@"),
            !text[scheme.upperBound..<at].contains("/")
        {
            text.replaceSubrange(scheme.upperBound...at, with: "…@")
        }
        if let key = text.firstRange(of: "passphrase=") {
            let end = text[key.upperBound...].firstIndex(of: "&") ?? text.endIndex
            text.replaceSubrange(key.upperBound..<end, with: "…")
        }
        return text
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
