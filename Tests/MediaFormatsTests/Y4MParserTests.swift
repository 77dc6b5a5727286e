import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// What is compared of a ``Y4MParser`` at the end besides its outputs.
struct Y4MParserState: Equatable {
    var bytesConsumed: Int64
    var framesParsed: Int64

    init(_ parser: Y4MParser) {
        bytesConsumed = parser.bytesConsumed
        framesParsed = parser.framesParsed
    }
}

/// ``Y4MParser`` fed whole, byte by byte and in random splits (``PushParserVerifier``): the same header,
/// frames and errors every time, and the same as ``Y4MReader``.
@Suite(.timeLimit(.minutes(2))) struct Y4MParserTests {
    /// Verifies `bytes` and returns the header, the frames and the error.
    static func parse(_ bytes: [UInt8]) throws -> (header: Y4MStreamHeader?, frames: [MediaSample], error: MediaError?)
    {
        let outcome = try PushParserVerifier.verify(bytes) {
            Y4MParser()
        } state: {
            Y4MParserState($0)
        }
        var header: Y4MStreamHeader?
        var frames: [MediaSample] = []
        for (index, output) in outcome.outputs.enumerated() {
            switch output {
            case .header(let parsed):
                #expect(index == 0, "the header comes first, and once")
                header = parsed
            case .frame(let frame):
                frames.append(frame)
            }
        }
        #expect(outcome.state.framesParsed == Int64(frames.count))
        if outcome.error == nil { #expect(outcome.state.bytesConsumed == Int64(bytes.count)) }
        return (header, frames, outcome.error)
    }

    /// 6 frames of 64x32 from FFmpeg in `pixelFormat`.
    static func ffmpegY4M(_ pixelFormat: String, width: Int = 64, height: Int = 32) throws -> [UInt8] {
        let dir = try TemporaryDirectory()
        let path = dir.file("x.y4m")
        try VideoTest.makeTestSource(
            path, width: width, height: height, frames: 6, pixelFormat: pixelFormat, container: "yuv4mpegpipe")
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test(arguments: ["yuv420p", "yuv422p", "yuv444p", "gray", "yuv420p10le", "yuv422p10le"])
    func ffmpegStreamsParseTheSameHoweverSplitAndAsTheReaderReadsThem(pixelFormat: String) throws {
        // 10 bits at an odd width: FFmpeg 5.1's yuv4mpegpipe muxer writes chroma rows of ceil(2w / 2) bytes, half
        // a sample short of its own demuxer's (and our) ceil(w / 2) 16-bit words, so it cannot read them back.
        let width = pixelFormat.hasSuffix("10le") ? 34 : 33
        let bytes = try Self.ffmpegY4M(pixelFormat, width: width, height: 17)
        let (header, frames, error) = try Self.parse(bytes)
        #expect(error == nil)
        #expect(frames.count == 6)
        let reader = try Y4MReader(bytes: bytes)
        #expect(header == reader.streamHeader)
        var source = reader
        #expect(try VideoTest.drain(&source) == frames)
        #expect(frames.allSatisfy { $0.planes.reduce(0) { $0 + $1.count } == header?.frameByteCount })
        #expect(
            frames.map(\.timing.presentationTime) == (0..<6).map { FrameRate(30000, 1001).time(ofFrame: Int64($0)) })
    }

    @Test func testPatternThroughTheMuxerComesBack() throws {
        var camera = try TestPatternGenerator(width: 48, height: 24, frameRate: FrameRate(25), length: .frames(8))
        let output = MemoryOutput()
        let muxer = Y4MMuxer(output: output)
        var written: [MediaSample] = []
        while let frame = try camera.next() {
            written.append(frame)
            try muxer.write(frame)
        }
        try muxer.finish()
        let (header, frames, error) = try Self.parse(output.bytes)
        #expect(error == nil)
        #expect(header?.format.width == 48 && header?.format.height == 24)
        #expect(frames.map(\.planes) == written.map(\.planes))
    }

    @Test func frameParametersArePassedOver() throws {
        let header = "YUV4MPEG2 W4 H2 F25:1 Cmono\n"
        let bytes =
            VideoTest.ascii(header + "FRAME Ixyz Xabc\n") + [1, 2, 3, 4, 5, 6, 7, 8]
            + VideoTest.ascii("FRAME\n") + [9, 10, 11, 12, 13, 14, 15, 16]
        let (parsed, frames, error) = try Self.parse(bytes)
        #expect(error == nil)
        #expect(parsed?.line == "YUV4MPEG2 W4 H2 F25:1 Cmono")
        #expect(frames.map(\.planes) == [[[1, 2, 3, 4, 5, 6, 7, 8]], [[9, 10, 11, 12, 13, 14, 15, 16]]])
    }

    @Test func cutInsideAFrameIsTruncatedAtItsFrameLine() throws {
        let bytes = try Self.ffmpegY4M("yuv420p")
        let headerLength = try #require(bytes.firstIndex(of: 0x0A)) + 1
        let stride = 6 + PixelFormat.yuv420p.frameByteCount(width: 64, height: 32)
        let (_, frames, error) = try Self.parse(Array(bytes.prefix(headerLength + 2 * stride + 100)))
        #expect(frames.count == 2)
        #expect(error?.code == .truncated)
        #expect(error?.byteOffset == Int64(headerLength + 2 * stride))
        #expect(error?.sampleIndex == 2)
        // A cut inside the frame line, and one inside the frame line's parameters.
        #expect(try Self.parse(Array(bytes.prefix(headerLength + stride + 3))).error?.code == .truncated)
        let parameters = VideoTest.ascii("YUV4MPEG2 W4 H2 Cmono\nFRAME Ixy")
        #expect(
            try Self.parse(parameters).error?.matching == MediaError(.truncated, "", byteOffset: 22, sampleIndex: 0))
    }

    /// Header and frame-line damage: empty, cut, not Y4M, unsupported chroma, no W, not FRAME, lines without a newline.
    static let damagedInputs = [
        "", "YUV4", "YUV4MPEG2 W16 H16", "RIFF\0\0\0\0WAVEfmt ", "YUV4MPEG2 W16 H16 C420p12\n", "YUV4MPEG2 H16\n",
        "YUV4MPEG2 W16 H16\nFRAMX\n", "YUV4MPEG2 W16 H16\nFRAME " + String(repeating: "x", count: 2000),
        "YUV4MPEG2 " + String(repeating: "X", count: 2000)
    ]

    @Test(arguments: damagedInputs.indices)
    func damagedInputFailsTheSameHoweverSplit(index: Int) throws {
        let (_, frames, error) = try Self.parse(VideoTest.ascii(Self.damagedInputs[index]))
        #expect(frames.isEmpty)
        let thrown = try #require(error)
        #expect([.truncated, .invalidData, .unsupportedFormat].contains(thrown.code))
        #expect(thrown.byteOffset != nil)
    }

    @Test func garbageFailsTheSameHoweverSplit() throws {
        var random = SplitMix64(seed: 11)
        let garbage = (0..<3000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        #expect(try Self.parse(garbage).error?.code == .invalidData)
        // A valid header, then garbage where a frame line should be.
        let (_, frames, error) = try Self.parse(VideoTest.ascii("YUV4MPEG2 W16 H16\n") + garbage)
        #expect(frames.isEmpty)
        #expect(error?.code == .invalidData)
        #expect(error?.byteOffset == 18)
    }

    @Test func pushingAfterFinishThrows() {
        var parser = Y4MParser()
        parser.finish()
        parser.push([0x59])
        #expect(throws: MediaError(.invalidArgument, "Y4MParser was given 1 byte after finish()")) { try parser.next() }
    }
}

extension MediaError {
    /// The error's code and offsets, for comparing errors whose messages are not under test.
    fileprivate var matching: MediaError {
        MediaError(code, "", byteOffset: byteOffset, sampleIndex: sampleIndex)
    }
}
