public import MediaCore

/// A push parser for YUV4MPEG2 (`.y4m`) streams: give it bytes in pieces of any size, take out the
/// stream header, then one raw frame per `FRAME`.
///
/// ```swift
/// var parser = Y4MParser()
/// parser.push(bytes)
/// parser.finish()
/// while let output = try parser.next() {
///     switch output {
///     case .header(let header): print(header.format)   // yuv420p 1280x720 @ 30000/1001
///     case .frame(let frame): try encoder.process(frame, into: mux)
///     }
/// }
/// ```
///
/// The first output is always ``Output/header(_:)`` (see ``Y4MStreamHeader`` for the parameters read),
/// every later one ``Output/frame(_:)``: one ``/MediaCore/MediaSample`` with tightly packed planes, pts
/// `frameRate.time(ofFrame: n)`, decode time = pts, one frame's duration and the keyframe flag. Frame
/// lines may carry parameters (`FRAME Ixyz`), which are passed over. The parser holds the bytes of at
/// most one line and one frame; a frame's planes are handed out without a copy and, once the consumer has
/// let go of a frame, reused for the next one.
///
/// Errors (a ``/MediaCore/MediaError`` with the byte offset of the offending header or frame line, and for
/// frames its index as ``/MediaCore/MediaError/sampleIndex``); after one, every call throws it again:
/// - ``/MediaCore/MediaError/Code/invalidData``: a stream that does not start with `YUV4MPEG2`, the header
///   errors of ``Y4MStreamHeader/init(parsing:)``, a header or frame line with no newline in its first
///   1024 bytes, a frame that does not start with `FRAME` (for example when `W`/`H` disagree with the data);
/// - ``/MediaCore/MediaError/Code/unsupportedFormat``: a chroma tag the header does not support;
/// - ``/MediaCore/MediaError/Code/truncated``, after ``finish()``: input that ends inside the header, a
///   frame line or a frame. The frames before it were handed out whole.
/// - ``/MediaCore/MediaError/Code/invalidArgument``: bytes pushed after ``finish()``.
public struct Y4MParser: PushParser, Sendable {
    /// What the parser hands out: the header once, then frames.
    public enum Output: Sendable, Hashable {
        /// The stream header, always the first output.
        case header(Y4MStreamHeader)
        /// One frame.
        case frame(MediaSample)
    }

    /// What the parser expects at ``bytesConsumed``.
    private enum State: Sendable {
        /// The header line; `line` holds its bytes so far.
        case header
        /// The first six bytes of a frame line (`FRAME` and a newline or space), in `line`.
        case frameLine
        /// The parameters of a frame line, up to its newline; `length` bytes of the line so far.
        case frameParameters(length: Int)
        /// Pixel data: plane `plane` of `planes` is being filled.
        case frameData(plane: Int)
    }

    private var state = State.header
    /// Bytes pushed and not yet parsed start at `start`.
    private var pending: [UInt8] = []
    private var start = 0
    /// The stream offset of `pending[0]`.
    private var pendingOffset: Int64 = 0
    /// The line being collected (header, or the start of a frame line).
    private var line: [UInt8] = []
    /// Where the header or the current frame's line starts.
    private var structureOffset: Int64 = 0
    private var inputEnd = PushInputEnd()
    private var failure: MediaError?
    /// The frame being filled, plane by plane, and the size of each plane.
    private var planes: [[UInt8]] = []
    private var planeSizes: [Int] = []
    /// Reuses the last frame's buffers once its consumer has let go: no allocation per frame.
    private var recycler = SampleRecycler()

    /// The stream header, once it has been handed out.
    public private(set) var header: Y4MStreamHeader?
    /// Frames handed out so far.
    public private(set) var framesParsed: Int64 = 0

    /// Bytes parsed so far: the stream offset of the first byte not yet parsed.
    public var bytesConsumed: Int64 { pendingOffset + Int64(start) }

    /// A parser at the start of a stream.
    public init() {}

    /// Appends the next bytes of the stream. Bytes pushed after ``finish()`` make ``next()`` throw.
    public mutating func push(_ bytes: some Collection<UInt8>) {
        guard inputEnd.accept(bytes.count) else { return }
        compact()
        pending.append(contentsOf: bytes)
    }

    /// Reads up to `count` bytes from `input` straight into the parser's buffer and returns how many (0 at
    /// the end of the input): ``Y4MReader``'s push, without an intermediate array.
    mutating func push(from input: ForwardInput, upTo count: Int) throws(MediaError) -> Int {
        guard !inputEnd.isFinished else { return 0 }
        compact()
        return try input.read(upTo: count, appendingTo: &pending)
    }

    /// How many more bytes the parser needs before it can decide anything: what is left of the frame or
    /// of the frame line's fixed part, else 1. A reader on a pipe reads no more than this, so that a frame
    /// is handed out as soon as its last byte has arrived.
    var bytesWanted: Int {
        let available = pending.count - start
        let needed: Int
        switch state {
        case .header, .frameParameters: needed = 1
        case .frameLine: needed = Y4MStreamHeader.frameMagic.count + 1 - line.count
        case .frameData(let plane):
            needed = planeSizes[plane...].reduce(0, +) - planes[plane].count
        }
        return max(1, needed - available)
    }

    /// Drops the parsed bytes, in place, once they are at least half of the buffer.
    private mutating func compact() {
        guard start > 0 && start * 2 >= pending.count else { return }
        pending.removeSubrange(0..<start)
        pendingOffset += Int64(start)
        start = 0
    }

    /// Says that no more bytes will come, so that ``next()`` reports a stream cut short.
    public mutating func finish() { inputEnd.finish() }

    /// The header, then the next frame; `nil` when the parser needs more bytes (before ``finish()``) or
    /// the stream has ended.
    ///
    /// - Throws: the errors the type's documentation lists; after an error, the same error again.
    public mutating func next() throws(MediaError) -> Output? {
        if let failure { throw failure }
        do throws(MediaError) {
            try inputEnd.check("Y4MParser")
            return try parse()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func parse() throws(MediaError) -> Output? {
        while true {
            switch state {
            case .header:
                guard let header = try parseHeaderLine() else { return nil }
                self.header = header
                planeSizes = header.format.planeByteCounts
                planes = planeSizes.map { _ in [] }
                startFrameLine()
                return .header(header)
            case .frameLine:
                guard try parseFrameLineStart() else { return nil }
            case .frameParameters(let length):
                guard try parseFrameParameters(length: length) else { return nil }
            case .frameData(let plane):
                guard let frame = try fillFrame(from: plane) else { return nil }
                return .frame(frame)
            }
        }
    }

    // MARK: - Lines

    /// Collects the header line; the header once its newline has arrived.
    private mutating func parseHeaderLine() throws(MediaError) -> Y4MStreamHeader? {
        let magic = Y4MStreamHeader.magic
        let what = "Y4M stream header"
        while start < pending.count {
            let byte = pending[start]
            start += 1
            if byte == 0x0A { return try Y4MStreamHeader(parsing: line) }
            line.append(byte)
            // Check the magic as soon as it is complete, so that a large file of something else fails at once.
            if line.count == magic.count, line != magic {
                throw MediaError.invalidData(
                    "not a YUV4MPEG2 stream: it starts with \(Y4MStreamHeader.printable(line)), not YUV4MPEG2", at: 0)
            }
            guard line.count < Y4MStreamHeader.maximumLineLength else {
                throw MediaError.invalidData(
                    "\(what) has no newline in its first \(count: Y4MStreamHeader.maximumLineLength, "byte")", at: 0)
            }
        }
        guard inputEnd.isFinished else { return nil }
        if line.count < magic.count {
            throw MediaError.truncated(
                "\(what) \"YUV4MPEG2 ...\"", needed: magic.count + 1, available: line.count, at: 0)
        }
        throw MediaError(.truncated, "\(what) ends after \(count: line.count, "byte") without a newline", byteOffset: 0)
    }

    private mutating func startFrameLine() {
        line.removeAll(keepingCapacity: true)
        structureOffset = bytesConsumed
        state = .frameLine
    }

    /// Collects `FRAME` and the byte after it; `false` when more bytes are needed or the stream has ended
    /// between frames (then the state stays `.frameLine` and ``next()`` returns `nil`).
    private mutating func parseFrameLineStart() throws(MediaError) -> Bool {
        let fixed = Y4MStreamHeader.frameMagic.count + 1
        let index = framesParsed
        let taken = min(fixed - line.count, pending.count - start)
        line.append(contentsOf: pending[start..<start + taken])
        start += taken
        guard line.count == fixed else {
            guard inputEnd.isFinished, !line.isEmpty else { return false }
            throw MediaError(
                .truncated, "Y4M frame \(index) line needs \(count: fixed, "byte") but only \(line.count) remain",
                byteOffset: structureOffset, sampleIndex: index)
        }
        guard line.starts(with: Y4MStreamHeader.frameMagic), line[5] == 0x0A || line[5] == 0x20 else {
            throw MediaError(
                .invalidData, "Y4M frame \(index) does not start with FRAME (found \(Y4MStreamHeader.printable(line)))",
                byteOffset: structureOffset, sampleIndex: index)
        }
        state = line[5] == 0x20 ? .frameParameters(length: fixed) : .frameData(plane: 0)
        return true
    }

    /// Passes over frame parameters up to the newline; `false` when more bytes are needed.
    private mutating func parseFrameParameters(length: Int) throws(MediaError) -> Bool {
        let index = framesParsed
        var length = length
        while start < pending.count {
            let byte = pending[start]
            start += 1
            length += 1
            if byte == 0x0A {
                state = .frameData(plane: 0)
                return true
            }
            guard length < Y4MStreamHeader.maximumLineLength else {
                throw MediaError(
                    .invalidData,
                    "Y4M frame \(index) line has no newline in its first \(count: Y4MStreamHeader.maximumLineLength, "byte")",
                    byteOffset: structureOffset, sampleIndex: index)
            }
        }
        state = .frameParameters(length: length)
        guard inputEnd.isFinished else { return false }
        throw MediaError(
            .truncated, "Y4M frame \(index) line ends without a newline", byteOffset: structureOffset,
            sampleIndex: index)
    }

    // MARK: - Frames

    /// Fills the planes from `plane` on; the frame once it is complete.
    private mutating func fillFrame(from plane: Int) throws(MediaError) -> MediaSample? {
        var plane = plane
        while plane < planes.count {
            if planes[plane].isEmpty { planes[plane].reserveCapacity(planeSizes[plane]) }
            let taken = min(planeSizes[plane] - planes[plane].count, pending.count - start)
            planes[plane].append(contentsOf: pending[start..<start + taken])
            start += taken
            if planes[plane].count < planeSizes[plane] { break }
            plane += 1
        }
        guard plane == planes.count else {
            state = .frameData(plane: plane)
            guard inputEnd.isFinished else { return nil }
            let total = planeSizes.reduce(0, +)
            let got = planes.reduce(0) { $0 + $1.count }
            throw RawFrameInput.truncated(
                "Y4M", format: header?.format ?? .raw(.gray, width: 0, height: 0), index: framesParsed, needed: total,
                available: got, at: structureOffset)
        }
        return takeFrame()
    }

    /// The filled planes as a sample; the recycled sample's emptied buffers become the next frame's planes.
    private mutating func takeFrame() -> MediaSample? {
        guard let header else { return nil }
        let pts = header.frameRate.time(ofFrame: framesParsed)
        var filled: [[UInt8]] = []
        swap(&filled, &planes)
        let frame = recycler.make(
            format: .video(header.format),
            timing: SampleTiming(presentationTime: pts, decodeTime: pts, duration: header.frameRate.frameDuration),
            frameCount: 1, flags: [.keyframe], planeCount: filled.count
        ) { (plane, bytes) in swap(&bytes, &filled[plane]) }  // the plane moves in; an empty buffer comes out
        planes = filled
        framesParsed += 1
        startFrameLine()
        return frame
    }
}
