import Foundation
import ExampleSupport
import MediaPipeline

/// What `media-info` prints for a movie or other container (MP4, MOV, Matroska, WebM, Ogg, MPEG-TS,
/// FLV, ...), read by ContainerDemuxer (libavformat): each stream's codec, size or rate, packets and
/// duration, and its configuration record.
struct ContainerInfo: Encodable {
    /// One stream, as the `streams` array of the JSON lists it.
    struct Stream: Encodable {
        var index: Int
        var type: String
        var codec: String
        var codecName: String
        var width: Int?
        var height: Int?
        var frameRate: String?
        var sampleRate: Int?
        var channels: Int?
        var packets: Int?
        var durationSeconds: Double?
        var configuration: String
    }

    var file: String
    var container: String
    var durationSeconds: Double?
    var streams: [Stream]
    var diagnostics: [String]

    init(file: String, demuxer: ContainerDemuxer) {
        self.file = file
        container = demuxer.formatName
        durationSeconds = demuxer.duration.isNumeric ? demuxer.duration.seconds : nil
        diagnostics = demuxer.diagnostics.map(\.message)
        streams = demuxer.streams.map { stream in
            var info = Stream(
                index: stream.index, type: stream.isVideo ? "video" : stream.isAudio ? "audio" : "other",
                codec: stream.codecName, codecName: stream.codecName, packets: stream.packetCount,
                durationSeconds: stream.duration.isNumeric ? stream.duration.seconds : nil, configuration: "")
            switch stream.format {
            case .video(let video)?:
                info.codec = video.codec.description.trimmingCharacters(in: CharacterSet(charactersIn: "'"))
                info.width = video.width
                info.height = video.height
                info.frameRate = video.frameRate?.description
                let record =
                    video.h264.map { $0.sequenceParameterSets + $0.pictureParameterSets }?.flatMap { $0 }
                    ?? video.codecConfiguration
                info.configuration = record.map { String(format: "%02x", $0) }.joined()
            case .audio(let audio)?:
                info.codec = audio.codec.description.trimmingCharacters(in: CharacterSet(charactersIn: "'"))
                info.sampleRate = audio.sampleRate
                info.channels = audio.channelCount
                info.configuration = audio.magicCookie.map { String(format: "%02x", $0) }.joined()
            case nil:
                break
            }
            return info
        }
    }

    /// The text form: the container, then one line per stream.
    var text: String {
        var lines = [
            "File:               \(file)",
            "Container:          \(container)"
                + (durationSeconds.map { ", \(formatDecimal($0, 6)) s" } ?? "")
        ]
        for stream in streams {
            var facts = ["\(stream.type) '\(stream.codec)' (\(stream.codecName))"]
            if let width = stream.width, let height = stream.height { facts.append("\(width)x\(height)") }
            if let rate = stream.frameRate { facts.append("\(rate) fps") }
            if let rate = stream.sampleRate, let channels = stream.channels {
                facts.append("\(rate) Hz, \(count: channels, "channel")")
            }
            if let packets = stream.packets { facts.append("\(count: packets, "packet")") }
            if let seconds = stream.durationSeconds { facts.append("\(formatDecimal(seconds, 3)) s") }
            if !stream.configuration.isEmpty { facts.append("configuration \(stream.configuration.count / 2) bytes") }
            lines.append(
                "Stream \(stream.index):".padding(toLength: 20, withPad: " ", startingAt: 0)
                    + facts.joined(separator: ", "))
        }
        lines += diagnostics.map { "Note:               \($0)" }
        return lines.joined(separator: "\n")
    }
}
