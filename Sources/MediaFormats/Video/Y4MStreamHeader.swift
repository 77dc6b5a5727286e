public import MediaCore

/// The stream header line of a YUV4MPEG2 stream (`YUV4MPEG2 W1280 H720 F30000:1001 Ip A1:1 C420jpeg`),
/// parsed: what ``Y4MParser`` hands out first and ``Y4MReader`` reads when it is created.
///
/// Its parameters come in any order, separated by spaces:
/// - `W` and `H`, the size (required, 1...8192);
/// - `F`, the frame rate as `num:den`; when missing or with a zero term (`0:0`) the rate is 25/1, as FFmpeg assumes;
/// - `C`, the chroma layout: `420jpeg`, `420paldv`, `420mpeg2` and `420` give
///   ``/MediaCore/PixelFormat/yuv420p`` (the siting differs, the bytes do not), `422` gives
///   ``/MediaCore/PixelFormat/yuv422p``, `444` gives ``/MediaCore/PixelFormat/yuv444p``, `mono` gives
///   ``/MediaCore/PixelFormat/gray``, and FFmpeg's 10-bit tags `420p10`, `422p10`, `444p10` give
///   ``/MediaCore/PixelFormat/yuv420p10le``, ``/MediaCore/PixelFormat/yuv422p10le``,
///   ``/MediaCore/PixelFormat/yuv444p10le`` (16-bit little-endian words); a missing `C` means 4:2:0;
/// - `I` (interlacing), `A` (pixel aspect ratio), `X` (extensions) and unknown parameters are passed
///   over: fields of an interlaced stream come out as the frames they are stored in.
public struct Y4MStreamHeader: Sendable, Hashable {
    /// The format of every frame: raw planar Y′CbCr of the header's size, chroma layout and rate.
    public let format: VideoFormat
    /// The header line as read, without its newline.
    public let line: String
    /// The header's `C` tag without the `C` (`420jpeg`, `mono`, ...), or `nil` when it has none.
    public let chromaTag: String?
    /// The header's `I` tag without the `I` (`p`, `t`, `b`, `m`, `?`), or `nil` when it has none.
    public let interlacing: String?
    /// The bytes of one frame's pixel data, all planes together.
    public let frameByteCount: Int
    /// The frame rate: `F`, or 25/1 when it is missing or `0:0`.
    public let frameRate: FrameRate

    /// The longest header or frame line accepted, newline included.
    static let maximumLineLength = 1024
    static let magic = Array("YUV4MPEG2".utf8)
    static let frameMagic = Array("FRAME".utf8)

    /// Parses a header line (without its newline).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidData`` for a line that does not start with
    ///   `YUV4MPEG2`, a missing or invalid `W` or `H`, an `F` that is not two numbers;
    ///   ``/MediaCore/MediaError/Code/unsupportedFormat`` for a chroma tag other than those listed above.
    ///   All at byte offset 0.
    public init(parsing line: some Collection<UInt8>) throws(MediaError) {
        let bytes = Array(line)
        let parsed = try Parameters(bytes)
        self.line = String(decoding: bytes, as: UTF8.self)
        chromaTag = parsed.chroma
        interlacing = parsed.interlacing
        frameRate = parsed.frameRate
        format = VideoFormat(
            codec: .raw(parsed.pixelFormat), width: parsed.width, height: parsed.height, frameRate: parsed.frameRate,
            pixelAspectRatio: parsed.pixelAspectRatio, chromaLocation: parsed.chromaLocation)
        frameByteCount = parsed.pixelFormat.frameByteCount(width: parsed.width, height: parsed.height)
    }

    /// Up to 16 bytes as text with non-printing bytes in hex, for error messages.
    static func printable(_ bytes: some Collection<UInt8>) -> String {
        let text = bytes.prefix(16).map { byte -> String in
            (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
        }.joined()
        return "\"" + text + "\""
    }
}

extension Y4MStreamHeader {
    /// The parameters of a stream header line.
    struct Parameters {
        var width: Int
        var height: Int
        var frameRate: FrameRate
        var pixelFormat: PixelFormat
        var chroma: String?
        var interlacing: String?
        /// `A` when both terms are positive (`A0:0` is unknown).
        var pixelAspectRatio: PixelAspectRatio?
        /// From the 4:2:0 chroma tags, as FFmpeg's y4m demuxer reads them.
        var chromaLocation: ChromaLocation?

        init(_ line: [UInt8]) throws(MediaError) {
            guard line.count >= Y4MStreamHeader.magic.count,
                Array(line.prefix(Y4MStreamHeader.magic.count)) == Y4MStreamHeader.magic
            else {
                throw MediaError.invalidData(
                    "not a YUV4MPEG2 stream: it starts with \(Y4MStreamHeader.printable(line)), not YUV4MPEG2", at: 0)
            }
            if line.count > Y4MStreamHeader.magic.count, line[Y4MStreamHeader.magic.count] != 0x20 {
                throw MediaError.invalidData(
                    "not a YUV4MPEG2 stream: it starts with \(Y4MStreamHeader.printable(line))", at: 0)
            }
            var width: Int?
            var height: Int?
            var rate: FrameRate?
            var chroma: String?
            var interlacing: String?
            let tokens = line.dropFirst(Y4MStreamHeader.magic.count).split(
                separator: 0x20, omittingEmptySubsequences: true)
            for token in tokens {
                guard let key = token.first else { continue }
                let value = String(decoding: token.dropFirst(), as: UTF8.self)
                switch key {
                case UInt8(ascii: "W"): width = try Self.dimension(value, "W")
                case UInt8(ascii: "H"): height = try Self.dimension(value, "H")
                case UInt8(ascii: "F"): rate = try Self.rate(value)
                case UInt8(ascii: "C"): chroma = value
                case UInt8(ascii: "I"): interlacing = value
                case UInt8(ascii: "A"): pixelAspectRatio = Self.aspect(value)
                default: break  // X (extensions) and unknown parameters
                }
            }
            guard let width else { throw MediaError.invalidData("Y4M stream header has no W (width) parameter", at: 0) }
            guard let height else {
                throw MediaError.invalidData("Y4M stream header has no H (height) parameter", at: 0)
            }
            self.width = width
            self.height = height
            // FFmpeg's yuv4mpegdec assumes 25 frames per second when F is missing or 0:0.
            frameRate = rate ?? FrameRate(25, 1)
            self.chroma = chroma
            self.interlacing = interlacing
            switch chroma {
            case nil, "420jpeg", "420": chromaLocation = .center
            case "420mpeg2": chromaLocation = .left
            case "420paldv": chromaLocation = .topLeft
            default: chromaLocation = nil
            }
            switch chroma {
            case nil, "420jpeg", "420paldv", "420mpeg2", "420": pixelFormat = .yuv420p
            case "422": pixelFormat = .yuv422p
            case "444": pixelFormat = .yuv444p
            case "mono": pixelFormat = .gray
            case "420p10": pixelFormat = .yuv420p10le
            case "422p10": pixelFormat = .yuv422p10le
            case "444p10": pixelFormat = .yuv444p10le
            case let tag?:
                throw MediaError(
                    .unsupportedFormat,
                    "Y4M chroma tag C\(tag) is not supported (only C420jpeg, C420paldv, C420mpeg2, C420, C422, C444, Cmono, C420p10, C422p10 and C444p10 are)",
                    byteOffset: 0)
            }
        }

        private static func dimension(_ text: String, _ key: String) throws(MediaError) -> Int {
            let limit = RawFrameInput.maximumDimension
            guard let value = Int(text), (1...limit).contains(value) else {
                throw MediaError.invalidData(
                    "Y4M \(key) parameter \"\(text)\" is not a size of 1...\(count: limit, "pixel")", at: 0)
            }
            return value
        }

        /// `h:v`; `nil` for `0:0` (unknown) or anything that is not two positive 32-bit numbers (ignored, as
        /// FFmpeg, whose ratios are 32-bit, does).
        private static func aspect(_ text: String) -> PixelAspectRatio? {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let h = Int32(parts[0]), let v = Int32(parts[1]), h > 0, v > 0 else { return nil }
            return PixelAspectRatio(Int(h), Int(v))
        }

        /// `num:den`; `nil` for `0:0` (unknown).
        private static func rate(_ text: String) throws(MediaError) -> FrameRate? {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let numerator = Int32(parts[0]), let denominator = Int32(parts[1]),
                numerator >= 0, denominator >= 0
            else {
                throw MediaError.invalidData("Y4M F parameter \"\(text)\" is not a frame rate num:den", at: 0)
            }
            if numerator == 0 || denominator == 0 { return nil }
            return FrameRate(numerator, denominator)
        }
    }
}
