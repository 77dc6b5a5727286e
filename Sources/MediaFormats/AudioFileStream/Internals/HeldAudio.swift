import MediaCore

/// Audio a container parser holds while waiting for a chunk that the container puts after it (an AIFF
/// `COMM` after `SSND`, a CAF `pakt` after `data`): at most ``AudioFileStreamParser/Batching/maxHeldBytes``,
/// kept with its file offsets so that the packets later cut from ``window`` carry them.
struct HeldAudio: Sendable {
    /// The held bytes, which the packet batchers read once the late chunk has arrived.
    var window = ByteWindow()
    /// Held bytes still to come from the input.
    private(set) var remaining: Int64 = 0
    /// The held audio's file byte range; `nil` when nothing is held.
    private(set) var range: Range<Int64>?
    /// Whether the reader will push the audio again once the late chunk has come
    /// (``deferToReader()``), so that nothing is held.
    private(set) var isDeferred = false

    /// Nothing held.
    init() {}

    /// Starts holding `size` bytes of audio that begin at file offset `start`.
    ///
    /// - Throws: `refusal` (naming the chunks and offsets) when `size` is more than `limit`.
    init(size: Int64, at start: Int64, limit: Int64, refusal: () -> MediaError) throws(MediaError) {
        guard size <= limit else { throw refusal() }
        window.reset(at: start)
        remaining = size
        range = start..<(start + size)
    }

    /// Lets go of what is held: the reader, which can read the file at any offset, will push the audio
    /// again after the late chunk (``AudioFileStreamParser/deferHeldAudio()``). ``range`` stays.
    mutating func deferToReader() {
        window = ByteWindow()
        remaining = 0
        isDeferred = true
    }

    /// Moves what `input` has of the held audio into ``window`` and returns how many bytes; once all
    /// have come (``isComplete``), the window is finished so that a batcher cuts its last packets.
    mutating func take(from input: inout ByteWindow) -> Int {
        let count = Int(min(remaining, Int64(input.available)))
        if count > 0, let bytes = input.take(count) {
            window.append(bytes)
            remaining -= Int64(count)
        }
        if remaining == 0 { window.finish() }
        return count
    }

    /// Whether every held byte has come.
    var isComplete: Bool { remaining == 0 }

    /// Reports held bytes that no packet took, then lets go of the audio.
    mutating func finish(into events: inout [AudioFileStreamEvent]) {
        if window.available > 0 {
            events.append(
                .diagnostic(.trailingBytesSkipped(byteOffset: window.position, count: Int64(window.available))))
        }
        self = HeldAudio()
    }
}
