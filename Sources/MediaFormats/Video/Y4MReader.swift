public import MediaCore

/// Reads YUV4MPEG2 (`.y4m`) video, what `ffmpeg -f yuv4mpegpipe`, x264 and mjpegtools write: a header
/// line, then frames of raw 8-bit planar Y′CbCr, each after a `FRAME` line. A ``Y4MParser`` fed from the
/// file.
///
/// ```swift
/// let reader = try Y4MReader(path: "clip.y4m")
/// print(reader.format)                 // yuv420p 1280x720 @ 30000/1001
/// while let frame = try reader.next() { try encoder.process(frame, into: mux) }
/// ```
///
/// The header (`YUV4MPEG2 W1280 H720 F30000:1001 Ip A1:1 C420jpeg XYSCSS=420JPEG`) is read when the
/// reader is created; ``Y4MStreamHeader`` lists the parameters it reads. The frames and errors are those
/// of ``Y4MParser``, with the stage `Y4MReader`. The file is read one frame at a time, so memory stays
/// flat; standard input (`-`) works too, and on a pipe each frame is handed out as soon as its last byte
/// has arrived.
///
/// After an error every call throws it again; after the end every call returns `nil`. The reader is a
/// class because it owns its position in the file; it is not thread-safe.
public final class Y4MReader: MediaSource {
    /// The parsed header line.
    public let streamHeader: Y4MStreamHeader
    /// The format of every frame: raw planar Y′CbCr of the header's size, chroma layout and rate.
    public var format: VideoFormat { streamHeader.format }
    /// The header line as read, without its newline.
    public var header: String { streamHeader.line }
    /// The header's `C` tag without the `C` (`420jpeg`, `mono`, ...), or `nil` when it has none.
    public var chromaTag: String? { streamHeader.chromaTag }
    /// The header's `I` tag without the `I` (`p`, `t`, `b`, `m`, `?`), or `nil` when it has none.
    public var interlacing: String? { streamHeader.interlacing }
    /// The bytes of one frame's pixel data, all planes together.
    public var frameByteCount: Int { streamHeader.frameByteCount }
    /// Frames delivered so far.
    public var framesRead: Int64 { parser.framesParsed }

    private var parser: Y4MParser
    private let input: ForwardInput
    private var failure: MediaError?

    /// The most bytes read at once: a regular file is read ahead this far anyway.
    private static let readSize = 1 << 16

    /// A short name for errors: `Y4MReader`.
    public var name: String { "Y4MReader" }

    /// Opens the `.y4m` file at `path` (`-` reads standard input) and reads its header.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/io`` when the file cannot be opened or read, and the header
    ///   errors of ``Y4MParser``.
    public convenience init(path: String) throws(MediaError) {
        try self.init(input: ForwardInput(path: path))
    }

    /// Reads YUV4MPEG2 video held in memory, starting with its header.
    ///
    /// - Throws: the header errors of ``Y4MParser``.
    public convenience init(bytes: [UInt8]) throws(MediaError) {
        try self.init(input: ForwardInput(bytes: bytes))
    }

    private init(input: ForwardInput) throws(MediaError) {
        var parser = Y4MParser()
        do throws(MediaError) {
            guard case .header(let header) = try Self.next(from: &parser, input: input) else {
                // The parser's first output is the header, or it throws.
                throw MediaError.invalidData("not a YUV4MPEG2 stream", at: 0)
            }
            streamHeader = header
        } catch {
            throw error.inStage("Y4MReader")
        }
        self.parser = parser
        self.input = input
    }

    /// The next frame, or `nil` at the end of the stream.
    ///
    /// - Throws: the frame errors of ``Y4MParser``; ``/MediaCore/MediaError/Code/io`` when reading fails.
    public func next() throws(MediaError) -> MediaSample? {
        if let failure { throw failure }
        do throws(MediaError) {
            guard case .frame(let frame) = try Self.next(from: &parser, input: input) else { return nil }
            return frame
        } catch {
            let named = error.inStage(name)
            failure = named
            throw named
        }
    }

    /// The parser's next output, reading no more than it needs from `input`.
    private static func next(from parser: inout Y4MParser, input: ForwardInput) throws(MediaError) -> Y4MParser.Output?
    {
        while true {
            if let output = try parser.next() { return output }
            if try parser.push(from: input, upTo: min(parser.bytesWanted, readSize)) == 0 {
                parser.finish()
                return try parser.next()
            }
        }
    }
}
