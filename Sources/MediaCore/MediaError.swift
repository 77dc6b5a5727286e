/// The one error type MediaPipeline throws: a ``Code`` saying what kind of failure, one sentence saying
/// what exactly, and where it happened (stage, byte offset, sample index, FFmpeg call).
///
/// ```swift
/// do {
///     var pipeline = Pipeline(source: try CAFReader(bytes: cutCAF), stages: [AudioDecoder()], sink: CollectingSink())
///     try pipeline.run()
/// } catch let error as MediaError where error.code == .truncated {
///     print(error)  // "CAF 'data' chunk needs 16392 bytes but only 3929 remain at byte offset 103."
/// }
/// ```
///
/// Not every irregularity is an error. Where players carry on, a reader works around it and records a
/// diagnostic instead of throwing: a WAV file cut short is read to its last whole frame and succeeds, with
/// the cut in `WAVReader.diagnostics`; a damaged ADTS frame is skipped, with a note in
/// `ADTSReader.diagnostics`. See <doc:ErrorsAndDiagnostics>.
public struct MediaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure. An open set: new codes may be added, so `switch` with a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The input ends before a structure it declares (a header, a chunk, a frame).
        public static let truncated = Code("truncated")
        /// The input breaks its format's rules (a bad sync word, a length that cannot be).
        public static let invalidData = Code("invalid data")
        /// The input is well-formed but uses something this library does not handle.
        public static let unsupportedFormat = Code("unsupported format")
        /// A stage was given samples of a format it does not take.
        public static let formatMismatch = Code("format mismatch")
        /// A call came after the stage finished or failed.
        public static let stageFinished = Code("stage finished")
        /// A setting or argument is out of range.
        public static let invalidArgument = Code("invalid argument")
        /// A codec or feature is not available in this FFmpeg build or on this machine.
        public static let unavailable = Code("unavailable")
        /// An encoder failed.
        public static let encoderFailure = Code("encoder failure")
        /// A decoder failed.
        public static let decoderFailure = Code("decoder failure")
        /// An allocation failed.
        public static let outOfMemory = Code("out of memory")
        /// Reading or writing a file or stream failed.
        public static let io = Code("I/O error")
        /// A branch of a ``MediaGraph`` produced nothing while the others filled the interleaving bound.
        public static let stalled = Code("stalled")
        /// A bounded queue is full: a consumer is not taking what is produced for it (a demuxer stream
        /// whose source is not being read).
        public static let queueFull = Code("queue full")
        /// The device a capture or playback stream was using went away (unplugged, its module
        /// unloaded, the sound server gone): the stream has ended and will deliver nothing more.
        public static let deviceLost = Code("device lost")
        /// A network input gave nothing for longer than its timeout (opening it, or between two
        /// packets).
        public static let timedOut = Code("timed out")
        /// The caller stopped an operation before it could finish (opening a network input).
        public static let cancelled = Code("cancelled")
        /// A peer or an input went past a limit set on it: connections, the length of a stream key, a
        /// message's size, the bytes buffered for one connection.
        public static let limitExceeded = Code("limit exceeded")

        /// The code's name, e.g. `truncated`.
        public var description: String { name }
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, as one sentence without the location (that is in the other properties).
    public var message: String
    /// The stage in which it happened, when a ``Pipeline`` ran it.
    public var stage: String?
    /// The byte offset in the input where the offending structure starts.
    public var byteOffset: Int64?
    /// The index of the sample (packet, frame) being processed.
    public var sampleIndex: Int64?
    /// The FFmpeg function that failed, if any.
    public var ffmpegCall: String?
    /// The FFmpeg return code (a negative `AVERROR`), if any.
    public var ffmpegCode: Int32?

    /// An error with every field given.
    public init(
        _ code: Code,
        _ message: String,
        byteOffset: Int64? = nil,
        sampleIndex: Int64? = nil,
        stage: String? = nil,
        ffmpegCall: String? = nil,
        ffmpegCode: Int32? = nil
    ) {
        self.code = code
        self.message = message
        self.byteOffset = byteOffset
        self.sampleIndex = sampleIndex
        self.stage = stage
        self.ffmpegCall = ffmpegCall
        self.ffmpegCode = ffmpegCode
    }

    /// The input ended: `needed` bytes were required at `offset` but only `available` remain.
    public static func truncated(_ what: String, needed: Int, available: Int, at offset: Int64) -> MediaError {
        MediaError(
            .truncated, "\(what) needs \(count: needed, "byte") but only \(available) remain", byteOffset: offset)
    }

    /// The input is invalid at `offset`.
    public static func invalidData(_ message: String, at offset: Int64? = nil) -> MediaError {
        MediaError(.invalidData, message, byteOffset: offset)
    }

    /// A stage was given `actual` where it takes `expected`.
    public static func formatMismatch(stage: String, expected: String, actual: MediaFormat) -> MediaError {
        MediaError(.formatMismatch, "\(stage) takes \(expected) but was given \(actual)")
    }

    /// A call came after `finish` or after an error.
    public static func stageFinished(_ stage: String) -> MediaError {
        MediaError(.stageFinished, "\(stage) was called after it finished or failed")
    }

    /// The error with `stage` set, unless it already names one, and `sampleIndex` set to `index`
    /// unless it already has one.
    public func inStage(_ name: String, sampleIndex index: Int64) -> MediaError {
        var copy = self
        if copy.stage == nil { copy.stage = name }
        if copy.sampleIndex == nil { copy.sampleIndex = index }
        return copy
    }

    /// The error with `stage` set, unless it already names one.
    public func inStage(_ name: String) -> MediaError {
        var copy = self
        if copy.stage == nil { copy.stage = name }
        return copy
    }

    /// One sentence: the message, then where it happened.
    public var description: String {
        var text = message
        if let byteOffset { text += " at byte offset \(byteOffset)" }
        if let sampleIndex { text += " (sample \(sampleIndex))" }
        if let stage { text += " in stage \(stage)" }
        if let ffmpegCall {
            text += " (FFmpeg \(ffmpegCall)"
            if let ffmpegCode { text += " returned \(ffmpegCode)" }
            text += ")"
        }
        return text + "."
    }
}
