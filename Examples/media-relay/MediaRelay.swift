import ArgumentParser
import ExampleSupport
import Foundation
import MediaIngest
import MediaPipeline

/// `media-relay`: accepts RTMP publishers and SRT callers and pulls URLs; records each stream in rotating segments,
/// writes it as live HLS and restreams it, until SIGTERM or Ctrl-C finish every file.
struct MediaRelay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media-relay",
        abstract:
            "Receive live streams (RTMP publishers, SRT callers, URLs) and record, re-package and restream each of them.",
        discussion: """
            Each stream is named by its RTMP stream key, its SRT stream ID (the part after its last /; \
            #!::r=live/cam1,m=publish names cam1), or by --pull's position (1, 2, …). For each: \
            --record DIR writes segments cut at keyframes to DIR/<name>/ (segment-00000.ts …) with \
            DIR/<name>/index.m3u8 (an EVENT playlist while recording, VOD once the stream ends) and \
            index.json; --hls DIR writes live HLS to DIR/<name>/index.m3u8; --push URL restreams it \
            (its name replaces {name} in the URL; reconnected with backoff). Publishers with a key not given \
            by --allow-key, or with one that cannot name a folder (only letters, digits, '.', '_' and '-'; \
            not '.' or '..'), are refused with RTMP's error status or SRT's rejection. --stats-json prints one JSON line a second \
            on standard output. SIGTERM or Ctrl-C closes every connection and finishes every file (exit \
            0 after SIGTERM, 130 after Ctrl-C).

            Examples:
              media-relay --rtmp-listen 127.0.0.1:1935 --record rec --segment-duration 6
              media-relay --rtmp-listen 0.0.0.0:1935 --allow-key cam1 --hls www/live --push rtmp://cdn/live/{name}
              media-relay --srt-listen 0.0.0.0:9000 --srt-passphrase 'long secret' --record rec
              media-relay --pull rtsp://127.0.0.1:8554/cam --record rec --segment-format mp4 --retain 24h
            """,
        version: "0.1.0")

    @Option(
        name: .customLong("rtmp-listen"),
        help: ArgumentHelp(
            "Accept RTMP publishers here (port 0: one the system picks, printed).", valueName: "HOST:PORT"))
    var rtmpListen: String?

    @Option(
        name: .customLong("srt-listen"),
        help: ArgumentHelp(
            "Accept SRT callers sending MPEG-TS here (UDP; port 0: one the system picks, printed).",
            valueName: "HOST:PORT"))
    var srtListen: String?

    @Option(
        name: .customLong("srt-passphrase"),
        help: ArgumentHelp("The passphrase SRT callers must give (10 to 79 characters).", valueName: "TEXT"))
    var srtPassphrase: String?

    @Option(
        name: .customLong("pull"),
        help: ArgumentHelp(
            "Read a stream from this URL (rtsp, rtmp, srt, http(s) files and HLS, udp, tcp); repeatable.",
            valueName: "URL"))
    var pull: [String] = []

    @Option(help: ArgumentHelp("Record each stream in segments into DIR/<name>/.", valueName: "DIR"))
    var record: String?

    @Option(
        name: .customLong("segment-duration"),
        help: ArgumentHelp("How long a recorded segment lasts, in seconds (cut at the next keyframe).", valueName: "S"))
    var segmentDuration: Double = 6

    @Option(
        name: .customLong("segment-format"), help: ArgumentHelp("The segments' container.", valueName: "ts|mp4|mkv"))
    var segmentFormat = "ts"

    @Option(
        help: ArgumentHelp(
            "Keep only the last N segments, the last N seconds (Ns, Nm, Nh) or N megabytes (NMB).",
            valueName: "N|Ns|NMB"))
    var retain: String?

    @Option(help: ArgumentHelp("Write each stream as live HLS to DIR/<name>/index.m3u8.", valueName: "DIR"))
    var hls: String?

    @Option(help: ArgumentHelp("Restream each stream to this URL; {name} is replaced by its name.", valueName: "URL"))
    var push: String?

    @Option(
        name: .customLong("allow-key"),
        help: ArgumentHelp(
            "Accept only publishers with this stream key; repeatable (default: any key).", valueName: "KEY"))
    var allowKey: [String] = []

    @Flag(name: .customLong("stats-json"), help: "Print one JSON line of every stream's counts each second.")
    var statsJSON = false

    @Flag(name: .shortAndLong, help: "Print no progress lines and no warnings (errors only).")
    var quiet = false

    @OptionGroup var logging: VerboseOption

    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func validate() throws {
        guard rtmpListen != nil || srtListen != nil || !pull.isEmpty else {
            throw ValidationError("give --rtmp-listen, --srt-listen or --pull")
        }
        guard record != nil || hls != nil || push != nil else {
            throw ValidationError("give at least one of --record, --hls and --push: what to do with each stream")
        }
        if let rtmpListen, RelayAddress(rtmpListen) == nil {
            throw ValidationError("--rtmp-listen '\(rtmpListen)' is not HOST:PORT")
        }
        if let srtListen, RelayAddress(srtListen) == nil {
            throw ValidationError("--srt-listen '\(srtListen)' is not HOST:PORT")
        }
        if let srtPassphrase, !(10...79).contains(srtPassphrase.utf8.count) {
            throw ValidationError("--srt-passphrase must have 10 to 79 characters")
        }
        if srtPassphrase != nil, srtListen == nil { throw ValidationError("--srt-passphrase needs --srt-listen") }
        guard ["ts", "mp4", "mkv"].contains(segmentFormat) else {
            throw ValidationError("--segment-format '\(segmentFormat)' is not one of ts, mp4, mkv")
        }
        guard segmentDuration > 0, segmentDuration.isFinite else {
            throw ValidationError("--segment-duration must be a positive number of seconds")
        }
        if let retain, RelayOutputs.retention(retain) == nil {
            throw ValidationError("--retain '\(retain)' is not N (files), Ns, Nm, Nh (time) or NMB (megabytes)")
        }
    }

    func run() throws {
        Interrupt.installTermination()
        let logger = ExampleLogHandler.logger(for: "media-relay", verbose: logging.verbose, quiet: quiet)
        var segments = SegmentedRecorder.Options()
        segments.segmentDuration = .milliseconds(Int64((segmentDuration * 1_000).rounded()))
        segments.format = ["mp4": .mp4, "mkv": .matroska][segmentFormat] ?? .mpegTS
        segments.retention = retain.flatMap(RelayOutputs.retention) ?? .all
        let outputs = RelayOutputs(
            record: record, hls: hls, push: push, segments: segments, logger: logger, quiet: quiet)

        var server: IngestServer?
        let rtmpAddress = rtmpListen.flatMap(RelayAddress.init)
        let srtAddress = srtListen.flatMap(RelayAddress.init)
        if rtmpAddress != nil || srtAddress != nil {
            let allowed = Set(allowKey)
            server = try IngestServer(
                rtmp: rtmpAddress.map { .init(host: $0.host, port: $0.port) },
                srt: srtAddress.map { .init(host: $0.host, port: $0.port, passphrase: srtPassphrase) }, logger: logger,
                authorize: { request in
                    if !RelayOutputs.isFolderName(request.key) { return "the stream key cannot name a folder" }
                    return allowed.isEmpty || allowed.contains(request.key) ? nil : "stream key not allowed"
                },
                onStream: { stream in outputs.relay(stream) })
            if !quiet, let server {
                if let rtmpAddress, let port = server.rtmpPort {
                    printError(
                        "media-relay: listening for RTMP publishers on rtmp://\(rtmpAddress.host):\(port)/APP/KEY")
                }
                if let srtAddress, let port = server.srtPort {
                    printError(
                        "media-relay: listening for SRT callers on srt://\(srtAddress.host):\(port)?streamid=KEY")
                }
            }
        }
        let pulls = pull.enumerated().map { index, url in PullRun(url: url, name: "\(index + 1)", outputs: outputs) }
        for run in pulls { run.start() }
        let stats = statsJSON ? StatsLines(server: server, pulls: pulls) : nil
        stats?.start()
        // Until SIGTERM or Ctrl-C; without a listener, until every pull has ended.
        while !Interrupt.wasRequested, server != nil || pulls.contains(where: { !$0.isDone }) {
            Thread.sleep(forTimeInterval: 0.1)
        }
        if !quiet { printError("media-relay: finishing every file") }
        for run in pulls { run.stop() }
        server?.stop()
        for run in pulls { run.wait() }
        stats?.stop()
        if !quiet { printError("media-relay: done") }
    }
}

/// `HOST:PORT` of `--rtmp-listen` and `--srt-listen` (`[::1]:1935` for IPv6).
struct RelayAddress {
    var host: String
    var port: Int

    init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65_535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.host = host
        self.port = port
    }
}
