internal import CMediaFFmpeg
import MediaCore

/// Owns an `AVBufferPool` (freed with `av_buffer_pool_uninit`, which FFmpeg defers until every buffer
/// is back) of the packet buffers a decoder is given: a packet then costs one small allocation (the
/// `AVBufferRef`) instead of three (`av_new_packet`'s data, `AVBuffer` and reference), and its buffer
/// goes back to the pool once the decoder lets go of it, however long the decoder keeps it (frame
/// threads, delay). A packet larger than the pool's buffers makes a new pool of twice that size.
final class PacketBufferPool {
    private var pool: OpaquePointer?
    private var bufferSize = 0

    init() {}

    deinit {
        if pool != nil {
            av_buffer_pool_uninit(&pool)
            FFmpeg.didFree()
        }
    }

    /// Gives `packet` (unreferenced) a pooled buffer of `count` bytes, its padding zeroed as FFmpeg
    /// requires, and returns the bytes to fill.
    func attach(to packet: Packet, count: Int) throws(MediaError) -> UnsafeMutablePointer<UInt8> {
        let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)
        guard count >= 0, count <= Int(Int32.max) - padding else {
            throw MediaError(.invalidData, "a packet of \(count) bytes is too large for FFmpeg")
        }
        if pool == nil || count + padding > bufferSize {
            if pool != nil {
                av_buffer_pool_uninit(&pool)
                FFmpeg.didFree()
            }
            let size = min(Int(Int32.max), max(4096, 2 * (count + padding)))
            guard let made = av_buffer_pool_init(size, nil) else {
                throw MediaError(
                    .outOfMemory, "cannot make a pool of \(size)-byte packet buffers", ffmpegCall: "av_buffer_pool_init"
                )
            }
            FFmpeg.didAllocate()
            pool = made
            bufferSize = size
        }
        guard let buffer = av_buffer_pool_get(pool), let data = buffer.pointee.data else {
            throw MediaError(
                .outOfMemory, "cannot get a packet buffer of \(bufferSize) bytes", ffmpegCall: "av_buffer_pool_get")
        }
        (data + count).initialize(repeating: 0, count: padding)
        packet.raw.pointee.buf = buffer  // unreferenced (back to the pool) by av_packet_unref
        packet.raw.pointee.data = data
        packet.raw.pointee.size = Int32(count)
        return data
    }
}

@available(*, unavailable) extension PacketBufferPool: Sendable {}
