internal import CMediaFFmpeg
import MediaCore

/// Decoded frames that samples borrow their planes from, reused once no sample refers to them: how a
/// decoder hands out FFmpeg's picture and audio buffers without copying them, and without a heap
/// allocation per frame in steady state (`CVPixelBufferPool` behind `VTDecompressionSession`).
///
/// Each ``FrameSlot`` owns one `AVFrame`. The decoder receives into a free slot
/// (``receive(from:)``); the samples it emits borrow the frame's planes with the slot as their owner,
/// so the frame's buffers (FFmpeg's own, refcounted) stay alive for as long as any sample does, on
/// whichever thread. A slot is free again when the pool holds the only reference to it; it is then
/// unreferenced (its buffers go back to the decoder's buffer pool) before it is reused.
final class FramePool {
    private var slots = BorrowedSlots<FrameSlot>()

    /// Receives the decoder's next frame into a free slot: the slot, or `nil` when the decoder wants more
    /// input or has ended (`EAGAIN`, `EOF`).
    func receive(from codec: CodecContext) throws(MediaError) -> FrameSlot? {
        let slot = try slots.free()
        let code = avcodec_receive_frame(codec.raw, slot.frame.raw)
        if code == mp_averror_eagain() || code == mp_averror_eof() { return nil }
        try check(code, calling: "avcodec_receive_frame", .decoderFailure)
        return slot
    }
}

@available(*, unavailable) extension FramePool: Sendable {}

/// One decoded `AVFrame` of a ``FramePool``: the owner samples borrow planes from.
///
/// `@unchecked Sendable` because a sample that borrows from it may be released on another thread:
/// the frame is written (received into, unreferenced) only by the pool, and only while the pool holds
/// the only reference to the slot, i.e. while no sample on any thread can read it; samples only read
/// the planes' bytes, through pointers taken when they were made, which FFmpeg leaves unchanged for
/// as long as the frame references its buffers.
final class FrameSlot: BorrowedSlot, @unchecked Sendable {
    let frame: Frame

    init() throws(MediaError) {
        frame = try Frame()
    }

    /// Gives the frame's buffers back to the decoder's pool, once no sample refers to the slot.
    ///
    /// Its own function, never inlined, so that a ThreadSanitizer report would name it: a consumer on
    /// another thread that read the samples borrowing from this slot and then let go of them is ordered
    /// before this by the reference count alone (a releasing decrement, and the acquiring load in
    /// `isKnownUniquelyReferenced`, inside the uninstrumented Swift runtime), as for
    /// `MediaSample.refillInPlace`, which `Tests/Sanitizers/tsan.supp` names. `make sanitize-thread`
    /// reports nothing here (2026-11-25): libavcodec, which reuses the buffers, is not instrumented.
    @inline(never)
    func unreference() {
        av_frame_unref(frame.raw)
    }

}

/// An owner of an `AVFrame` whose planes samples borrow: a decoder's ``FrameSlot`` or a scaler's
/// ``PictureSlot``. Its buffers come from FFmpeg's allocator, padded past each plane's end, so libswscale
/// may read them in place.
protocol PictureOwner: AnyObject {
    /// The frame the samples borrow from.
    var frame: Frame { get }
}

extension PictureOwner {
    /// The bytes of plane `plane`: `rows` rows `linesize` apart, the last one `rowBytes` long (the
    /// padding after the last row is not FFmpeg's to promise).
    func plane(_ plane: Int, rows: Int, rowBytes: Int) -> UnsafeRawBufferPointer {
        guard let base = mp_frame_data(frame.raw, Int32(plane)), rows > 0 else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        let stride = Int(mp_frame_linesize(frame.raw, Int32(plane)))
        return UnsafeRawBufferPointer(start: base, count: stride * (rows - 1) + rowBytes)
    }

    /// The line size of plane `plane`.
    func linesize(_ plane: Int) -> Int { Int(mp_frame_linesize(frame.raw, Int32(plane))) }
}

extension FrameSlot: PictureOwner {}

/// A picture a stage writes and lends (``VideoConverter``'s scaled frames), kept in a
/// ``BorrowedSlots`` list: the samples it emits borrow the frame's planes, and an encoder takes the
/// frame by reference instead of copying it (``H264Encoder``), as the ffmpeg CLI hands a filter's output
/// frame to its encoder.
///
/// `@unchecked Sendable` on the same ground as ``FrameSlot``: the picture is written only by its stage,
/// only while the list holds the only reference to the slot (no sample on any thread reads it), and only
/// when FFmpeg holds no reference to its buffers either (``prepare(_:width:height:)`` checks
/// `av_frame_is_writable` and gives the buffers up otherwise); samples only read the planes.
final class PictureSlot: BorrowedSlot, PictureOwner, @unchecked Sendable {
    let frame: Frame

    init() throws(MediaError) {
        frame = try Frame()
    }

    /// Keeps the buffers: the next picture is written into them.
    func unreference() {}

    /// Makes the frame ready for a `width`×`height` picture of `pixelFormat`: its buffers are kept when
    /// they have that shape and nobody else references them, else new ones are allocated.
    func prepare(_ pixelFormat: PixelFormat, width: Int, height: Int) throws(MediaError) {
        let raw = frame.raw.pointee
        if raw.format == pixelFormat.avPixelFormat.rawValue, Int(raw.width) == width, Int(raw.height) == height,
            mp_frame_data(frame.raw, 0) != nil, av_frame_is_writable(frame.raw) != 0
        {
            return
        }
        av_frame_unref(frame.raw)
        try frame.allocateVideo(pixelFormat, width: width, height: height)
    }
}
