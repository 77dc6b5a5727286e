public import MediaCore
public import MediaFormats
import MediaFFmpeg

/// An audio file as PCM with random access, like `ExtAudioFile`: ``/MediaFormats/AudioFileReader`` (any
/// WAVE, AIFF, AIFC, CAF, NeXT, ADTS or MP3 file) and ``/MediaFFmpeg/AudioDecoder`` in one object.
///
/// ```swift
/// let file = try AudioFile(path: "song.mp3", outputFormat: PCMFormat(.f32))   // default: the file's own type, else f32
/// try file.seek(toFrame: 44_100)                  // sample-accurate: one second in
/// while let pcm = try file.read() { play(pcm) }   // interleaved f32, priming and padding trimmed
/// ```
///
/// Frames count valid audio: frame 0 is the first after the encoder's priming, and the padding at the
/// end is never returned. A seek decodes from the packets the codec needs before the target and drops
/// what precedes it, so the frames after a seek are the frames a decode from the start gives there
/// (bit for bit for every codec here but AAC with noise substitution: see the reader).
///
/// Errors are the reader's and the decoder's, typed; the object owns a file position and a decoder and
/// is not thread-safe.
public final class AudioFile {
    /// What the file says about its audio.
    public var properties: AudioFileProperties { reader.properties }
    /// The format of the packets in the file.
    public var fileFormat: AudioFormat { reader.format }
    /// What the reader skipped or worked around so far.
    public var diagnostics: [AudioFileStreamDiagnostic] { reader.diagnostics }
    /// The PCM layout ``read()`` returns.
    public let outputFormat: PCMFormat

    private let reader: AudioFileReader
    /// The decoder in the life-cycle guard a driver would put it in: after it throws, it is not called
    /// again (until a seek makes a new one), and its errors name it and the packet.
    private var decoder: CheckedStage
    private var pending: [MediaSample] = []
    private var drained = false

    /// Opens `path` and reads its properties; samples are decoded to `outputFormat`, by default to the
    /// file's own sample type where it has one (linear PCM, and Apple Lossless at its source depth:
    /// `AudioFormat.sourceSampleType`, MediaFormats), so that lossless audio stays lossless, else to f32.
    ///
    /// - Throws: the reader's errors; ``/MediaCore/MediaError/Code/unsupportedFormat`` for a codec
    ///   ``/MediaFFmpeg/AudioDecoder`` cannot decode.
    public convenience init(path: String, outputFormat: PCMFormat? = nil) throws(MediaError) {
        try self.init(reader: AudioFileReader(path: path), name: path, outputFormat: outputFormat)
    }

    /// Reads the file in `stream` as its bytes arrive (``/MediaFormats/AudioFileReader/init(stream:fileTypeHint:)``):
    /// returns once the properties have arrived; ``read()`` and ``seek(toFrame:)`` wait for bytes that
    /// have not.
    ///
    /// - Throws: as ``init(path:outputFormat:)``; ``/MediaCore/MediaError/Code/cancelled`` when the stream is
    ///   cancelled.
    public convenience init(
        stream: AudioByteStream, fileTypeHint: AudioFileType? = nil, outputFormat: PCMFormat? = nil
    ) throws(MediaError) {
        try self.init(
            reader: AudioFileReader(stream: stream, fileTypeHint: fileTypeHint), name: stream.name,
            outputFormat: outputFormat)
    }

    private init(reader: AudioFileReader, name path: String, outputFormat: PCMFormat?) throws(MediaError) {
        self.reader = reader
        let outputFormat = outputFormat ?? PCMFormat(reader.format.sourceSampleType ?? .f32)
        self.outputFormat = outputFormat
        decoder = CheckedStage(AudioDecoder(outputFormat: outputFormat))
        guard AudioDecoder.canDecode(.audio(reader.format)) else {
            throw MediaError(.unsupportedFormat, "\(path): AudioDecoder cannot decode \(reader.format)")
        }
    }

    /// The next decoded PCM, or `nil` at the end of the audio.
    public func read() throws -> MediaSample? {
        while pending.isEmpty {
            if drained { return nil }
            if let packet = try reader.next() {
                try decoder.process(packet) { pending.append($0) }
            } else {
                try decoder.finish { pending.append($0) }
                drained = true
            }
        }
        return pending.removeFirst()
    }

    /// Moves to valid frame `frame`, so that ``read()`` returns it first.
    ///
    /// - Throws: the reader's seek errors (a frame past the end, standard input).
    public func seek(toFrame frame: Int64) throws(MediaError) {
        try reader.seek(toFrame: frame)
        decoder = CheckedStage(AudioDecoder(outputFormat: outputFormat))  // no state from before the seek
        pending.removeAll()
        drained = false
    }
}

@available(*, unavailable) extension AudioFile: Sendable {}
