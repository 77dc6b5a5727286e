import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport

/// What one parse of a whole file gave, split into what tests look at.
struct StreamParse {
    var events: [AudioFileStreamEvent]
    var error: MediaError?

    /// Parses `bytes` whole, byte by byte (when `byteByByte`) and in random splits, checks that all give
    /// the same events and errors (``PushParserVerifier``), and returns them.
    static func verified(
        _ bytes: [UInt8], byteByByte: Bool = true, hint: AudioFileType? = nil,
        batching: AudioFileStreamParser.Batching = .init()
    ) throws -> StreamParse {
        let outcome = try PushParserVerifier.verify(bytes, byteByByte: byteByByte) {
            AudioFileStreamParser(fileTypeHint: hint, batching: batching)
        }
        return StreamParse(events: outcome.outputs, error: outcome.error)
    }

    var fileType: AudioFileType? { events.lazy.compactMap { if case .fileType(let t) = $0 { t } else { nil } }.first }
    var format: AudioStreamBasicDescription? {
        events.lazy.compactMap { if case .dataFormat(let f) = $0 { f } else { nil } }.first
    }
    var cookie: [UInt8]? { events.lazy.compactMap { if case .magicCookie(let c) = $0 { c } else { nil } }.first }
    var dataOffset: Int64? { events.lazy.compactMap { if case .dataOffset(let o) = $0 { o } else { nil } }.first }
    var batches: [AudioFilePackets] { events.compactMap { if case .packets(let p) = $0 { p } else { nil } } }
    var diagnostics: [AudioFileStreamDiagnostic] {
        events.compactMap { if case .diagnostic(let d) = $0 { d } else { nil } }
    }
    var packetCount: Int { batches.reduce(0) { $0 + $1.packetCount } }

    /// Each packet's bytes, in order.
    var packets: [[UInt8]] {
        batches.flatMap { batch in
            batch.descriptions.isEmpty
                ? [batch.bytes]
                : batch.descriptions.map { Array(batch.bytes[$0.startOffset..<($0.startOffset + $0.dataByteSize)]) }
        }
    }

    /// Whether `readyToProducePackets` comes exactly once, after every property and before every packet.
    var propertiesPrecedePackets: Bool {
        guard let ready = events.firstIndex(of: .readyToProducePackets) else { return false }
        let isProperty: (AudioFileStreamEvent) -> Bool = {
            switch $0 {
            case .packets, .diagnostic, .readyToProducePackets: return false
            default: return true
            }
        }
        return events.filter { $0 == .readyToProducePackets }.count == 1
            && !events[..<ready].contains { if case .packets = $0 { true } else { false } }
            && !events[(ready + 1)...].contains(where: isProperty)
    }
}

/// ffprobe's count of packets in `path`.
func ffprobePacketCount(_ path: String) throws -> Int {
    let result = try ExternalTool.check(
        "ffprobe",
        [
            "-v", "error", "-count_packets", "-select_streams", "a:0", "-show_entries", "stream=nb_read_packets", "-of",
            "csv=p=0", path
        ])
    return Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
}
