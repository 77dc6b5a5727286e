public import MediaCore

/// Reads YUV4MPEG2 (`.y4m`) video, what `ffmpeg -f yuv4mpegpipe`, x264 and mjpegtools write: a header
/// line, then frames of raw 8-bit planar Y′CbCr, each after a `FRAME` line.
///
/// ```swift
/// let reader = try Y4MReader(path: "clip.y4m")
/// print(reader.format)                 // yuv420p 1280x720 @ 30000/1001
/// while let frame = try reader.next() { try encoder.process(frame, into: mux) }
/// ```
///
/// The header (`YUV4MPEG2 W1280 H720 F30000:1001 Ip A1:1 C420jpeg XYSCSS=420JPEG`) is read when the
/// reader is created. Its parameters come in any order, separated by spaces:
/// - `W` and `H`, the size (required, 1...8192);
/// - `F`, the frame rate as `num:den`; when missing or with a zero term (`0:0`) the rate is 25/1, as FFmpeg assumes;
/// - `C`, the chroma layout: `420jpeg`, `420paldv`, `420mpeg2` and `420` give
///   ``MediaCore/PixelFormat/yuv420p`` (the siting differs, the bytes do not), `422` gives
///   ``MediaCore/PixelFormat/yuv422p``, `444` gives ``MediaCore/PixelFormat/yuv444p``, `mono` gives
///   ``MediaCore/PixelFormat/gray``; a missing `C` means 4:2:0;
/// - `I` (interlacing), `A` (pixel aspect ratio), `X` (extensions) and unknown parameters are passed
///   over: fields of an interlaced stream come out as the frames they are stored in.
///
/// Each frame is one ``MediaCore/MediaSample`` with tightly packed planes, pts
/// `frameRate.time(ofFrame: n)`, decode time = pts, one frame's duration and the keyframe flag. Frame
/// lines may carry parameters (`FRAME Ixyz`), which are passed over. The file is read one frame at a
/// time, so memory stays flat; standard input (`-`) works too.
///
/// Errors (a ``MediaCore/MediaError`` with the byte offset of the offending header or frame, and for
/// frames its index as ``MediaCore/MediaError/sampleIndex``):
/// - ``MediaCore/MediaError/Code/invalidData``: a file that does not start with `YUV4MPEG2`, a missing or
///   invalid `W` or `H`, an `F` that is not two numbers, a header or frame line with no newline in its
///   first 1024 bytes, a frame that does not start with `FRAME` (for example when `W`/`H` disagree
///   with the data);
/// - ``MediaCore/MediaError/Code/unsupportedFormat``: a chroma tag other than those above (`C420p10`,
///   `C444alpha`, ...), naming it;
/// - ``MediaCore/MediaError/Code/truncated``: an input cut inside the header, a frame line or a frame.
///   The frames before it were delivered whole.
///
/// After an error every call throws it again; after the end every call returns `nil`. The reader is a
/// class because it owns its position in the file; it is not thread-safe.
public final class Y4MReader: MediaSource {
    /// The format of every frame: raw planar Y′CbCr of the header's size, chroma layout and rate.
    public let format: VideoFormat
    /// The header line as read, without its newline.
    public let header: String
    /// The header's `C` tag without the `C` (`420jpeg`, `mono`, ...), or `nil` when it has none.
    public let chromaTag: String?
    /// The header's `I` tag without the `I` (`p`, `t`, `b`, `m`, `?`), or `nil` when it has none.
    public let interlacing: String?
    /// The bytes of one frame's pixel data, all planes together.
    public let frameByteCount: Int
    /// Frames delivered so far.
    public private(set) var framesRead: Int64 = 0
    /// Reuses the last frame's buffers once its consumer has let go: no allocation per frame.
    private var recycler = SampleRecycler()

    private let input: ForwardInput
    private let frameRate: FrameRate
    private var failure: MediaError?
    private var ended = false

    /// The longest header or frame line accepted, newline included.
    static let maximumLineLength = 1024
    private static let magic = Array("YUV4MPEG2".utf8)
    private static let frameMagic = Array("FRAME".utf8)

    /// A short name for errors: `Y4MReader`.
    public var name: String { "Y4MReader" }

    /// Opens the `.y4m` file at `path` (`-` reads standard input) and reads its header.
    ///
    /// - Throws: ``MediaCore/MediaError/Code/io`` when the file cannot be opened or read, and the header
    ///   errors the type's documentation lists.
    public convenience init(path: String) throws(MediaError) {
        try self.init(input: ForwardInput(path: path))
    }

    /// Reads YUV4MPEG2 video held in memory, starting with its header.
    ///
    /// - Throws: the header errors the type's documentation lists.
    public convenience init(bytes: [UInt8]) throws(MediaError) {
        try self.init(input: ForwardInput(bytes: bytes))
    }

    private init(input: ForwardInput) throws(MediaError) {
        do throws(MediaError) {
            let line = try Self.readLine(from: input, what: "Y4M stream header")
            let parsed = try Header(line)
            self.input = input
            header = String(decoding: line, as: UTF8.self)
            chromaTag = parsed.chroma
            interlacing = parsed.interlacing
            frameRate = parsed.frameRate
            format = VideoFormat(
                codec: .raw(parsed.pixelFormat), width: parsed.width, height: parsed.height, frameRate: parsed.frameRate,
                pixelAspectRatio: parsed.pixelAspectRatio, chromaLocation: parsed.chromaLocation)
            frameByteCount = parsed.pixelFormat.frameByteCount(width: parsed.width, height: parsed.height)
        } catch {
            throw error.inStage("Y4MReader")
        }
    }

    /// The next frame, or `nil` at the end of the stream.
    ///
    /// - Throws: the frame errors the type's documentation lists; ``MediaCore/MediaError/Code/io`` when
    ///   reading fails.
    public func next() throws(MediaError) -> MediaSample? {
        if let failure { throw failure }
        if ended { return nil }
        let index = framesRead
        let frameOffset = input.position
        do throws(MediaError) {
            guard try readFrameLine(index: index, at: frameOffset) else {
                ended = true
                return nil
            }
            guard let frame = try RawFrameInput.readFrame(
                from: input, format: format, rate: frameRate, index: index, structureOffset: frameOffset, what: "Y4M",
                allowEnd: false, recycler: &recycler)
            else {
                throw MediaError(.truncated, "Y4M frame \(index) has a FRAME line but no pixel data", byteOffset: frameOffset, sampleIndex: index)
            }
            framesRead += 1
            return frame
        } catch {
            let named = error.inStage(name)
            failure = named
            throw named
        }
    }

    /// Reads the `FRAME` line of frame `index`; `false` when the input ends before it starts.
    private func readFrameLine(index: Int64, at offset: Int64) throws(MediaError) -> Bool {
        let start = try input.read(upTo: Self.frameMagic.count + 1)
        if start.isEmpty { return false }
        guard start.count == Self.frameMagic.count + 1 else {
            throw MediaError(
                .truncated, "Y4M frame \(index) line needs \(Self.frameMagic.count + 1) bytes but only \(start.count) remain",
                byteOffset: offset, sampleIndex: index)
        }
        guard Array(start.prefix(Self.frameMagic.count)) == Self.frameMagic, start[5] == 0x0A || start[5] == 0x20 else {
            throw MediaError(
                .invalidData, "Y4M frame \(index) does not start with FRAME (found \(Self.printable(start)))",
                byteOffset: offset, sampleIndex: index)
        }
        if start[5] == 0x20 {
            // Frame parameters: pass over them up to the newline.
            var length = start.count
            while true {
                let byte = try input.read(upTo: 1)
                guard let first = byte.first else {
                    throw MediaError(.truncated, "Y4M frame \(index) line ends without a newline", byteOffset: offset, sampleIndex: index)
                }
                length += 1
                if first == 0x0A { break }
                guard length < Self.maximumLineLength else {
                    throw MediaError(
                        .invalidData, "Y4M frame \(index) line has no newline in its first \(Self.maximumLineLength) bytes",
                        byteOffset: offset, sampleIndex: index)
                }
            }
        }
        return true
    }

    /// The bytes of one line without its newline, at most ``maximumLineLength`` bytes long.
    private static func readLine(from input: ForwardInput, what: String) throws(MediaError) -> [UInt8] {
        let offset = input.position
        var line: [UInt8] = []
        while true {
            let byte = try input.read(upTo: 1)
            guard let first = byte.first else {
                if line.count < magic.count {
                    throw MediaError.truncated("\(what) \"YUV4MPEG2 ...\"", needed: magic.count + 1, available: line.count, at: offset)
                }
                throw MediaError(.truncated, "\(what) ends after \(line.count) bytes without a newline", byteOffset: offset)
            }
            if first == 0x0A { return line }
            line.append(first)
            // Check the magic as soon as it is complete, so that a large file of something else fails at once.
            if line.count == magic.count, line != magic {
                throw MediaError.invalidData("not a YUV4MPEG2 stream: it starts with \(printable(line)), not YUV4MPEG2", at: offset)
            }
            guard line.count < maximumLineLength else {
                throw MediaError.invalidData("\(what) has no newline in its first \(maximumLineLength) bytes", at: offset)
            }
        }
    }

    /// Up to 16 bytes as text with non-printing bytes in hex, for error messages.
    static func printable(_ bytes: [UInt8]) -> String {
        let text = bytes.prefix(16).map { byte -> String in
            (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
        }.joined()
        return "\"" + text + "\""
    }
}

extension Y4MReader {
    /// The parameters of a stream header line.
    private struct Header {
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
            guard line.count >= magic.count, Array(line.prefix(magic.count)) == magic else {
                throw MediaError.invalidData("not a YUV4MPEG2 stream: it starts with \(printable(line)), not YUV4MPEG2", at: 0)
            }
            if line.count > magic.count, line[magic.count] != 0x20 {
                throw MediaError.invalidData("not a YUV4MPEG2 stream: it starts with \(printable(line))", at: 0)
            }
            var width: Int?
            var height: Int?
            var rate: FrameRate?
            var chroma: String?
            var interlacing: String?
            let tokens = line.dropFirst(magic.count).split(separator: 0x20, omittingEmptySubsequences: true)
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
            guard let height else { throw MediaError.invalidData("Y4M stream header has no H (height) parameter", at: 0) }
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
            case let tag?:
                throw MediaError(
                    .unsupportedFormat,
                    "Y4M chroma tag C\(tag) is not supported (only 8-bit C420jpeg, C420paldv, C420mpeg2, C420, C422, C444 and Cmono are)",
                    byteOffset: 0)
            }
        }

        private static func dimension(_ text: String, _ key: String) throws(MediaError) -> Int {
            let limit = RawFrameInput.maximumDimension
            guard let value = Int(text), (1...limit).contains(value) else {
                throw MediaError.invalidData("Y4M \(key) parameter \"\(text)\" is not a size of 1...\(limit) pixels", at: 0)
            }
            return value
        }

        /// `h:v`; `nil` for `0:0` (unknown) or anything that is not two positive numbers (ignored, as FFmpeg does).
        private static func aspect(_ text: String) -> PixelAspectRatio? {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let h = Int(parts[0]), let v = Int(parts[1]), h > 0, v > 0 else { return nil }
            return PixelAspectRatio(h, v)
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
