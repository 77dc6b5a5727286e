import MediaCore

/// The AIFF/AIFC part of AudioFileStreamParser. (Placeholder: being written.)
struct AIFFStreamParser: AudioFileFormatParser {
    init(batching: AudioFileStreamParser.Batching) {}

    mutating func parse(_ input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) throws(MediaError) {
        throw MediaError(.unsupportedFormat, "AIFF/AIFC files are not read yet", byteOffset: input.position)
    }

    func seekOffset(forPacket packet: Int64) -> AudioFileStreamSeekOffset? { nil }

    mutating func resume(atPacket packet: Int64, byteOffset: Int64) {}
}
