import MediaCore

/// A chunk whose body a container parser (AIFF, CAF) is skipping with ``ByteWindow/skip(_:)``, kept so
/// that when the input ends before the skip is done it can say which chunk ran past the end.
///
/// `tolerance` bytes may be missing at the end without that counting: the pad byte after an odd-sized
/// AIFF chunk, which some writers leave out at the end of the file.
struct SkippedChunk: Sendable, Hashable {
    /// The container's name for messages: `AIFF`, `CAF`.
    let container: String
    /// The chunk's type, as ``ByteWindow/fourCC(at:)`` gives it.
    let type: String
    /// The file offset of the chunk's header.
    let headerOffset: Int64
    /// The file offset of the chunk's body.
    let bodyOffset: Int64
    /// The body's declared size.
    let declaredSize: Int64
    /// Bytes that may be missing at the end (a pad byte).
    let tolerance: Int64

    /// Whether the input, which has ended, stopped inside the skip by more than ``tolerance``.
    func ranPastEnd(_ input: ByteWindow) -> Bool { input.isFinished && input.pendingSkip > tolerance }

    /// The bytes of the body the file holds, given that the input ended inside the skip.
    private func available(_ input: ByteWindow) -> Int64 { max(0, input.position - input.pendingSkip - bodyOffset) }

    /// The error for a chunk that runs past the end before the audio data.
    func truncation(_ input: ByteWindow) -> MediaError {
        MediaError.truncated(
            "\(container) '\(type)' chunk", needed: Int(clamping: declaredSize),
            available: Int(clamping: available(input)),
            at: headerOffset)
    }

    /// The diagnostic for a chunk that runs past the end after the audio data (nothing is lost).
    func diagnostic(_ input: ByteWindow) -> AudioFileStreamDiagnostic {
        .note(
            "The \(container) '\(type)' chunk after the audio data declares \(count: declaredSize, "byte") but the file ends after \(available(input))",
            byteOffset: headerOffset)
    }
}
