public import MediaCore

/// Reads headerless raw video (a `.yuv`, `.rgb`, `.nv12` file, what `ffmpeg -f rawvideo` writes): frames
/// of exactly ``frameByteCount`` bytes, one after the other, in the size, pixel format and rate given.
///
/// ```swift
/// let reader = try RawVideoReader(path: "in.yuv", width: 1280, height: 720, pixelFormat: .yuv420p,
///                                 frameRate: FrameRate(30000, 1001))
/// while let frame = try reader.next() { try encoder.process(frame, into: mux) }
/// ```
///
/// Each frame is one ``/MediaCore/MediaSample`` with tightly packed planes in ``/MediaCore/PixelFormat``
/// order, pts `frameRate.time(ofFrame: n)`, decode time = pts, one frame's duration and the keyframe
/// flag. The file is read one frame at a time, so memory stays flat; standard input (`-`) works too.
///
/// A file whose length is not a whole number of frames delivers every whole frame, then throws
/// ``/MediaCore/MediaError/Code/truncated`` naming the partial frame's index and byte offset. After an error every
/// call throws it again; after the end every call returns `nil`.
///
/// The reader is a class because it owns its position in the file; it is not thread-safe.
public final class RawVideoReader: MediaSource {
    /// The format of every frame: raw, the size, pixel format and rate given, tightly packed.
    public let format: VideoFormat
    /// The bytes of one frame, all planes together.
    public let frameByteCount: Int
    /// Frames delivered so far.
    public private(set) var framesRead: Int64 = 0
    /// Reuses the last frame's buffers once its consumer has let go: no allocation per frame.
    private var recycler = SampleRecycler()

    private let input: ForwardInput
    private let frameRate: FrameRate
    private var failure: MediaError?
    private var ended = false

    /// A short name for errors: `RawVideoReader`.
    public var name: String { "RawVideoReader" }

    /// Opens the raw video file at `path` (`-` reads standard input).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a width or height outside 1...8192 or a frame
    ///   rate that is not positive; ``/MediaCore/MediaError/Code/io`` when the file cannot be opened.
    public convenience init(
        path: String, width: Int, height: Int, pixelFormat: PixelFormat, frameRate: FrameRate
    ) throws(MediaError) {
        try Self.check(width: width, height: height, frameRate: frameRate)
        try self.init(
            input: ForwardInput(path: path), width: width, height: height, pixelFormat: pixelFormat,
            frameRate: frameRate)
    }

    /// Reads raw video held in memory.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a width or height outside 1...8192 or a frame
    ///   rate that is not positive.
    public convenience init(
        bytes: [UInt8], width: Int, height: Int, pixelFormat: PixelFormat, frameRate: FrameRate
    ) throws(MediaError) {
        try Self.check(width: width, height: height, frameRate: frameRate)
        self.init(
            input: ForwardInput(bytes: bytes), width: width, height: height, pixelFormat: pixelFormat,
            frameRate: frameRate)
    }

    private init(input: ForwardInput, width: Int, height: Int, pixelFormat: PixelFormat, frameRate: FrameRate) {
        self.input = input
        self.frameRate = frameRate
        format = .raw(pixelFormat, width: width, height: height, frameRate: frameRate)
        frameByteCount = pixelFormat.frameByteCount(width: width, height: height)
    }

    private static func check(width: Int, height: Int, frameRate: FrameRate) throws(MediaError) {
        let limit = RawFrameInput.maximumDimension
        guard (1...limit).contains(width), (1...limit).contains(height) else {
            throw MediaError(
                .invalidArgument, "RawVideoReader size \(width)x\(height) is outside 1...\(limit) in either direction")
        }
        guard frameRate.isValid else {
            throw MediaError(.invalidArgument, "RawVideoReader frame rate \(frameRate) is not positive")
        }
    }

    /// The next frame, or `nil` after the last whole frame.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/truncated`` for a partial frame at the end, with its index
    ///   (``/MediaCore/MediaError/sampleIndex``) and byte offset; ``/MediaCore/MediaError/Code/io`` when reading fails.
    public func next() throws(MediaError) -> MediaSample? {
        if let failure { throw failure }
        if ended { return nil }
        let index = framesRead
        do throws(MediaError) {
            guard
                let frame = try RawFrameInput.readFrame(
                    from: input, format: format, rate: frameRate, index: index, structureOffset: input.position,
                    what: "raw \(format.codec)", allowEnd: true, recycler: &recycler)
            else {
                ended = true
                return nil
            }
            framesRead += 1
            return frame
        } catch {
            let named = error.inStage(name)
            failure = named
            throw named
        }
    }
}
