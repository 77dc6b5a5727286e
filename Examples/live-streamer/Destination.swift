import ExampleSupport
import MediaPipeline

/// What `--to` names: a network URL (a ``ReconnectingSink`` around a ``ContainerMuxer`` to the URL) or
/// an HLS playlist path (a ``ContainerMuxer`` writing segments beside it; nothing to reconnect).
enum Destination {
    /// Whether `to` is an HLS playlist path (ends in `.m3u8`, any case) rather than a URL.
    static func isHLS(_ to: String) -> Bool { ContainerMuxer.isHLSPlaylist(to) }

    /// The sink for `to`: connections to a URL (with `protocolOptions` for libavformat's protocol) are
    /// retried `reconnect` times per outage, and each reconnection asks the encoder for a keyframe
    /// through `keyframes`; a playlist is written with `hls`.
    static func sink(
        _ to: String, reconnect: Int, protocolOptions: [String: String], hls: HLSOptions, keyframes: KeyframeRequest,
        onEvent: @escaping @Sendable (ReconnectingSink.Event) -> Void
    ) throws -> any MultiTrackSink {
        if isHLS(to) { return try ContainerMuxer(hlsPlaylist: to, hls: hls) }
        return ReconnectingSink(
            name: to, backoff: ReconnectingSink.Backoff(maxAttempts: reconnect), keyframeRequest: keyframes,
            onEvent: onEvent
        ) {
            try ContainerMuxer(url: to, protocolOptions: protocolOptions)
        }
    }
}

/// Prints connection events on standard error (unless `--quiet`).
struct EventPrinter: Sendable {
    let enabled: Bool
    /// The destination the events are about, named in each line; `nil` for `--to`'s.
    var destination: String? = nil

    /// One line for `event`.
    @Sendable func print(_ event: ReconnectingSink.Event) {
        guard enabled else { return }
        let who = destination.map { "live-streamer: \($0): " } ?? "live-streamer: "
        let seconds = { (duration: Duration) in
            formatDecimal(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18, 1)
        }
        switch event {
        case .disconnected(let error, let retryIn):
            printError(who + "connection lost (\(error.message)); reconnecting in \(seconds(retryIn)) s")
        case .attemptFailed(let attempt, let error, let retryIn?):
            printError(
                who + "reconnection attempt \(attempt) failed (\(error.message)); next in \(seconds(retryIn)) s"
            )
        case .attemptFailed(let attempt, let error, nil):
            printError(who + "reconnection attempt \(attempt) failed (\(error.message)); giving up")
        case .reconnected(let attempt, let downtime):
            printError(
                who + "reconnected on attempt \(attempt) after \(seconds(downtime)) s; resuming at the next keyframe"
            )
        case .resumed(let time):
            printError(who + "resumed at \(formatDecimal(time.seconds ?? 0, 3)) s")
        }
    }
}
