import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// A frame is accepted only when its sync is confirmed: by the header after it, by the end of the input
/// exactly at its end, or by the confirmed frame before it ending where it starts. So one valid header
/// followed by kilobytes of noise is not trusted as a first frame and remuxed as a packet.
@Suite(.timeLimit(.minutes(2))) struct ADTSSyncConfirmationTests {
    /// Seeded noise without 0xFF, so without any sync word of its own.
    static func noise(_ count: Int, seed: UInt32 = 7) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16) & 0x7F
        }
    }

    /// A valid stereo 48 kHz header declaring `payload` bytes.
    static func header(payload: Int) -> [UInt8] {
        ADTSHeader(objectType: 2, samplingFrequencyIndex: 3, channelConfiguration: 2, payloadLength: payload).bytes
    }

    /// One header, then 4 KB of noise: past the declared frame (300 bytes) and shorter than it (8000).
    @Test(arguments: [300, 8000])
    func oneHeaderFollowedByNoiseIsNoStream(payload: Int) throws {
        let bytes = Self.header(payload: payload) + Self.noise(4096)
        let outcome = try parseADTS(bytes)
        #expect(outcome.packets.isEmpty)
        #expect(outcome.error == MediaError.invalidData("no ADTS sync word found in \(bytes.count) bytes", at: 0))
        #expect(outcome.diagnostics == [.trailingBytesSkipped(byteOffset: 0, count: bytes.count)])

        let dir = try TemporaryDirectory()
        let path = dir.file("noise.aac")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reader = try ADTSReader(path: path)
        let error = #expect(throws: MediaError.self) { while try reader.next() != nil {} }
        #expect(error?.code == .invalidData && error?.stage == "ADTSReader" && error?.byteOffset == 0)
    }

    /// The lone header and noise before a real stream: skipped as one resynchronisation, every frame kept.
    @Test func loneHeaderAndNoiseBeforeAStreamAreSkipped() throws {
        let directory = try TemporaryDirectory()
        let clean = try ffmpegADTS(in: directory)
        let reference = try parseADTS(clean).packets
        let garbage = Self.header(payload: 300) + Self.noise(4096)
        let outcome = try parseADTS(garbage + clean)
        #expect(outcome.error == nil)
        #expect(outcome.diagnostics == [.resynchronized(byteOffset: 0, skippedBytes: garbage.count)])
        #expect(outcome.packets.map(\.data) == reference.map(\.data))
    }

    /// Still accepted: a lone frame that ends exactly at the end of the input, and a stream's last frame
    /// followed by noise (its header is where the confirmed frame before it ended).
    @Test func confirmedFramesAreStillAccepted() throws {
        let directory = try TemporaryDirectory()
        let clean = try ffmpegADTS(in: directory)
        let frames = frameRanges(clean)
        let reference = try parseADTS(clean).packets
        let first = try parseADTS(Array(clean[frames[0]]))
        #expect(first.error == nil && first.diagnostics.isEmpty)
        #expect(first.packets.map(\.data) == [reference[0].data])

        let noisy = try parseADTS(clean + Self.noise(4096))
        #expect(noisy.packets.map(\.data) == reference.map(\.data))
        #expect(noisy.diagnostics == [.trailingBytesSkipped(byteOffset: Int64(clean.count), count: 4096)])
    }
}
