import ArgumentParser
import ExampleSupport
import Foundation
import MediaPipeline

/// `media-info FILE [--json]`: `afinfo` for every file AudioFileStreamParser reads.
struct MediaInfo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media-info",
        abstract:
            "Print what an audio file holds, like afinfo: WAVE, AIFF, AIFC, CAF, NeXT/Sun .au, ADTS and MP3; and the streams of a movie (MP4, MOV, Matroska, WebM, Ogg, MPEG-TS, FLV).",
        discussion: """
            The file (a path, '-' for standard input, or an http://, https:// or ftp:// URL, fetched whole \
            first, up to 1 GiB) is parsed whole by MediaPipeline's AudioFileStreamParser (pure Swift, no FFmpeg): its \
            format as Core Audio describes it (an AudioStreamBasicDescription), the packets, frames and bytes \
            it really holds, the priming and remainder frames it states (CAF pakt, MP3 LAME tag) and what the \
            parser skipped or worked around. --json prints one JSON object; its keys are listed in README.md \
            and are a stable interface. A local movie or other container is described by ContainerDemuxer \
            instead: each stream's codec (H.264, HEVC, AV1, VP9, AAC, Opus, FLAC, ...), size or rate, packets \
            and configuration record.

            Examples:
              media-info song.mp3
              media-info song.mp3 --json
              media-info https://example.com/podcast/episode-12.mp3
            """,
        version: "0.2.0")

    @Argument(
        help: ArgumentHelp(
            "The audio file ('-' reads standard input; an http(s):// or ftp:// URL is fetched).", valueName: "FILE"))
    var file: String

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    /// `--verbose`: also log what the parser skipped or worked around on standard error, one line each.
    @OptionGroup var logging: VerboseOption

    @Flag(
        name: .shortAndLong,
        help: "Print nothing on standard error but errors (wins over --verbose); the report is still printed.")
    var quiet = false

    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func run() throws {
        let summary: AudioFileSummary
        do {
            summary = try Self.summary(of: file)
        } catch let error as MediaError {
            // A movie or other container (MP4, Matroska, Ogg, MPEG-TS ...): described by ContainerDemuxer.
            guard error.code == .unsupportedFormat, file != "-", !file.contains("://"),
                let demuxer = try? ContainerDemuxer(path: file)
            else { throw error }
            let info = ContainerInfo(file: file, demuxer: demuxer)
            try report(info, text: info.text)
            return
        }
        if logging.verbose && !quiet {
            // The report lists these as notes too; --verbose also logs them, with their metadata, as
            // the other examples log their readers' diagnostics.
            let logger = ExampleLogHandler.logger(for: "media-info", verbose: true, quiet: false)
            for diagnostic in summary.diagnostics {
                diagnostic.mediaDiagnostic(stage: "AudioFileSummary").log(to: logger)
            }
        }
        let info = Info(file: file, summary: summary)
        try report(info, text: info.text)
        // What the parser skipped or worked around, summed up in one warning line (the report has each).
        let warning = InputWarnings.line(
            example: "media-info", path: file,
            diagnostics: summary.diagnostics.map { $0.mediaDiagnostic(stage: "AudioFileSummary") })
        if !quiet, let warning { printError(warning) }
    }
}

extension MediaInfo {
    /// Prints `info` as one JSON object with sorted keys (`--json`), else `text`.
    func report(_ info: some Encodable, text: String) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(info), as: UTF8.self))
        } else {
            print(text)
        }
    }

    /// The largest resource fetched from a URL: it is held in memory to be parsed.
    static let urlLimit = 1 << 30

    /// The summary of the file at `file`: a path, `-`, or a URL whose bytes are fetched first
    /// (`URLByteReader`, FFmpeg's http/https/ftp protocols; the parsing itself stays FFmpeg-free).
    static func summary(of file: String) throws -> AudioFileSummary {
        let scheme = file.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        guard file.contains("://"), URLByteReader.schemes.contains(scheme) else {
            return try AudioFileSummary(path: file)
        }
        var options = ContainerDemuxer.NetworkOptions()
        options.stop = Interrupt.signal
        let bytes = try URLByteReader.readAll(url: file, options: options, limit: urlLimit)
        if Interrupt.wasRequested {
            throw MediaError(.cancelled, "fetching \(ContainerDemuxer.redacted(file)) was interrupted")
        }
        return try AudioFileSummary(bytes: bytes)
    }
}

/// What `media-info` prints, in the order it prints it.
struct Info: Encodable {
    var file: String
    var fileType: String
    var formatID: String
    var formatFlags: UInt32
    var sampleRate: Double
    var channels: Int
    var channelLayout: String
    var bitsPerChannel: Int
    var framesPerPacket: Int
    var bytesPerPacket: Int
    var bytesPerFrame: Int
    var packets: Int64
    var validFrames: Int64
    var primingFrames: Int64
    var remainderFrames: Int64
    var dataOffset: Int64
    var dataBytes: Int64
    var maximumPacketSize: Int
    var bitRate: Int
    var durationSeconds: Double
    var cookie: String
    var float: Bool?
    var bigEndian: Bool?
    var diagnostics: [String]

    init(file: String, summary: AudioFileSummary) {
        let properties = summary.properties
        let asbd =
            properties.dataFormat
            ?? AudioStreamBasicDescription(
                sampleRate: 0, formatID: 0, bytesPerPacket: 0, framesPerPacket: 0, bytesPerFrame: 0,
                channelsPerFrame: 0, bitsPerChannel: 0)
        self.file = file
        fileType = properties.fileType?.rawValue ?? "?"
        formatID = asbd.formatIDString
        formatFlags = asbd.formatFlags
        sampleRate = asbd.sampleRate
        channels = Int(asbd.channelsPerFrame)
        channelLayout = (properties.channelLayout ?? .default(channelCount: channels)).description
        bitsPerChannel = Int(asbd.bitsPerChannel)
        framesPerPacket = Int(asbd.framesPerPacket)
        bytesPerPacket = Int(asbd.bytesPerPacket)
        bytesPerFrame = Int(asbd.bytesPerFrame)
        packets = summary.packets
        validFrames = summary.validFrames
        primingFrames = summary.primingFrames
        remainderFrames = summary.remainderFrames
        dataOffset = properties.dataOffset ?? 0
        dataBytes = summary.dataBytes
        maximumPacketSize = summary.largestPacket
        bitRate = summary.bitRate
        durationSeconds = summary.durationSeconds
        cookie = properties.magicCookie.map { String(format: "%02x", $0) }.joined()
        if asbd.isLinearPCM {
            float = asbd.flags.contains(.isFloat)
            bigEndian = asbd.flags.contains(.isBigEndian)
        }
        diagnostics = summary.diagnostics.map(\.description)
    }

    /// The text form, one fact per line, as `afinfo` lays it out.
    var text: String {
        var lines = [
            "File:               \(file)",
            "File type:          \(fileType)",
            "Data format:        \(channels) ch, \(formatDecimal(sampleRate, sampleRate.rounded() == sampleRate ? 0 : 3)) Hz, '\(formatID)' (0x\(String(formatFlags, radix: 16, uppercase: true))) "
                + "\(bitsPerChannel) bits/channel, \(bytesPerPacket) bytes/packet, \(framesPerPacket) frames/packet, \(bytesPerFrame) bytes/frame",
            "Channel layout:     \(channelLayout)"
        ]
        if let float, let bigEndian {
            lines.append(
                "Sample type:        \(float ? "float" : "integer"), \(bigEndian ? "big-endian" : "little-endian")")
        }
        lines += [
            "Packets:            \(packets)",
            "Valid frames:       \(validFrames) (priming \(primingFrames), remainder \(remainderFrames))",
            "Duration:           \(formatDecimal(durationSeconds, 6)) s",
            "Audio data:         \(count: dataBytes, "byte") at offset \(dataOffset)",
            "Maximum packet:     \(count: maximumPacketSize, "byte")",
            "Bit rate:           \(bitRate) bits/s",
            "Magic cookie:       \(cookie.isEmpty ? "none" : cookie)"
        ]
        lines += diagnostics.map { "Note:               \($0)" }
        return lines.joined(separator: "\n")
    }
}
