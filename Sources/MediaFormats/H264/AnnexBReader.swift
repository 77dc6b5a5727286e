public import Logging
public import MediaCore

/// Reads the access units of an H.264 Annex-B elementary stream (`.h264`) from a file or a byte
/// array: an ``AnnexBAccessUnitParser`` fed in chunks.
///
/// ```swift
/// let reader = try AnnexBReader(path: "camera.h264")
/// while let accessUnit = try reader.next() {
///     // AVCC payload, SPS/PPS in accessUnit.format, .keyframe on IDR access units
/// }
/// print(reader.formatChangeCount)
/// ```
///
/// The samples, time stamps (`index × frame duration` in decode order, since the stream has none),
/// frame rate default and errors are those of ``AnnexBAccessUnitParser``. The reader holds one chunk
/// and the access unit being collected, not the whole file. Chunks are read straight into the parser's
/// buffer, NAL units are copied once (into the sample), and the sample handed out last is reused when
/// the caller has let go of it: in steady state reading allocates nothing.
///
/// What the reader works around goes to ``diagnostics`` and ``logger``: non-zero bytes before the first
/// start code, skipped, as a warning (`leadingBytesSkipped`); a change of parameter sets mid-stream as a note
/// (`formatChanged`, with the index of the first sample in the new format).
///
/// The reader is a class because it owns its position in the file: copies of a value would share the
/// file position but not the parser's buffer. It is not thread-safe; hand it to one task at a time.
public final class AnnexBReader: MediaSource, DiagnosticListing {
    private var parser: AnnexBAccessUnitParser
    private let input: ForwardInput
    private let readSize: Int
    private var failure: MediaError?
    private var bytesRead: Int64 = 0

    /// A reader of the file at `path` (`-` for standard input), reading `readSize` bytes at a time.
    ///
    /// - Parameters:
    ///   - path: the file to read, or `-` for standard input.
    ///   - readSize: bytes read per call, at least 1.
    ///   - defaultFrameRate: the frame rate when the SPS has no timing information.
    /// - Throws: ``/MediaCore/MediaError/Code/io`` when the file cannot be opened;
    ///   ``/MediaCore/MediaError/Code/invalidArgument`` when `readSize` is not positive.
    public init(
        path: String, readSize: Int = AnnexBReader.standardReadSize,
        defaultFrameRate: FrameRate = AnnexBAccessUnitParser.standardDefaultFrameRate
    ) throws(MediaError) {
        guard readSize > 0 else {
            throw MediaError(.invalidArgument, "AnnexBReader read size \(readSize) is not positive")
        }
        input = try ForwardInput(path: path)
        self.readSize = readSize
        parser = AnnexBAccessUnitParser(defaultFrameRate: defaultFrameRate)
    }

    /// A reader of the Annex-B stream in `bytes`, parsed `readSize` bytes at a time.
    public init(
        bytes: [UInt8], readSize: Int = AnnexBReader.standardReadSize,
        defaultFrameRate: FrameRate = AnnexBAccessUnitParser.standardDefaultFrameRate
    ) {
        input = ForwardInput(bytes: bytes)
        self.readSize = max(1, readSize)
        parser = AnnexBAccessUnitParser(defaultFrameRate: defaultFrameRate)
    }

    /// How much is read at once unless told otherwise: 1 MiB, so that system calls and buffer
    /// compaction are rare.
    public static let standardReadSize = 1 << 20

    /// The name used in errors.
    public var name: String { "AnnexBReader" }

    /// How many times the parameter sets changed after the first sample (see
    /// ``AnnexBAccessUnitParser/formatChangeCount``).
    public var formatChangeCount: Int { parser.formatChangeCount }

    /// Access units returned so far.
    public var accessUnitCount: Int64 { parser.accessUnitCount }

    /// What the reader worked around so far, in order, each with the metadata `stage`, `code`, and
    /// `byteOffset` and `count` (bytes skipped) or `sampleIndex` (see ``/MediaCore/DiagnosticKey``).
    public private(set) var diagnostics: [MediaDiagnostic] = []
    /// ``diagnostics`` (already ``/MediaCore/MediaDiagnostic``s), for ``/MediaCore/DiagnosticListing``.
    public var mediaDiagnostics: [MediaDiagnostic] { diagnostics }
    /// Where ``diagnostics`` are logged as they are found. Setting it logs those found so far; `nil` (the
    /// default) logs nothing.
    public var logger: Logger? {
        didSet { for diagnostic in diagnostics { diagnostic.log(to: logger) } }
    }
    private var reportedSkippedBytes = 0
    private var reportedFormatChanges = 0

    /// The next access unit, or `nil` at the end of the stream.
    ///
    /// - Throws: the parser's errors, and ``/MediaCore/MediaError/Code/io`` when reading fails; all in
    ///   stage `AnnexBReader`. ``/MediaCore/MediaError/Code/invalidData`` (at byte offset 0) when the input
    ///   ends without a single access unit: empty, or parameter sets and no slice (ffmpeg, too, refuses
    ///   such a file as invalid data). After an error, every call throws it again.
    public func next() throws(MediaError) -> MediaSample? {
        defer {
            if parser.skippedLeadingBytes != reportedSkippedBytes
                || parser.formatChangeCount != reportedFormatChanges
            {
                reportNew()
            }
        }
        if let failure { throw failure }
        do throws(MediaError) {
            while true {
                if let sample = try parser.next() { return sample }
                let got = try parser.append(from: input, upTo: readSize)
                bytesRead += Int64(got)
                if got == 0 {
                    parser.finish()
                    if let last = try parser.next() { return last }
                    guard parser.accessUnitCount > 0 else { throw noAccessUnit() }
                    return nil
                }
            }
        } catch {
            let named = error.inStage(name)
            failure = named
            throw named
        }
    }
}

extension AnnexBReader {
    /// The error for an input that ended before its first access unit.
    private func noAccessUnit() -> MediaError {
        if bytesRead == 0 { return MediaError.invalidData("the input holds no H.264: it is empty", at: 0) }
        let units = parser.nalUnitCount
        return MediaError.invalidData(
            "the input holds no H.264 picture: \(count: units, "NAL unit") in \(count: bytesRead, "byte"), no slice",
            at: 0)
    }

    /// Records (and logs) what the parser skipped or noticed since the last call.
    private func reportNew() {
        let skipped = parser.skippedLeadingBytes
        if skipped != reportedSkippedBytes {
            record(
                MediaDiagnostic(
                    .warning,
                    "Skipped \(count: skipped - reportedSkippedBytes, "non-zero byte") before the first start code.",
                    metadata: [
                        DiagnosticKey.stage: name, DiagnosticKey.code: "leadingBytesSkipped",
                        DiagnosticKey.byteOffset: "0",
                        DiagnosticKey.count: String(skipped - reportedSkippedBytes)
                    ]))
            reportedSkippedBytes = skipped
        }
        let changes = parser.formatChangeCount
        if changes != reportedFormatChanges {
            let index = parser.accessUnitCount - 1
            record(
                MediaDiagnostic(
                    .info, "The parameter sets change at sample \(index); it and those after it carry the new format.",
                    metadata: [
                        DiagnosticKey.stage: name, DiagnosticKey.code: "formatChanged",
                        DiagnosticKey.sampleIndex: String(index)
                    ]))
            reportedFormatChanges = changes
        }
    }

    private func record(_ diagnostic: MediaDiagnostic) {
        diagnostics.append(diagnostic)
        diagnostic.log(to: logger)
    }
}

@available(*, unavailable)
extension AnnexBReader: Sendable {}
