internal import CMediaFFmpeg
import MediaCore

/// Owns an `AVBufferPool` (freed with `av_buffer_pool_uninit`, which FFmpeg defers until every buffer
/// is back) of the packet buffers a decoder is given: a packet then costs one small allocation (the
/// `AVBufferRef`) instead of three (`av_new_packet`'s data, `AVBuffer` and reference), and its buffer
/// goes back to the pool once the decoder lets go of it, however long the decoder keeps it (frame
/// threads, delay). An encoder can take its packets' buffers from one too
/// (`supplyEncodedPackets(of:)`). A packet larger than the pool's buffers makes a new pool of twice that size.
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
        try attach(to: packet.raw, count: count)
    }

    /// Makes this pool the source of `context`'s packet buffers, when its encoder asks for them
    /// (`AV_CODEC_CAP_DR1`: libx264 since FFmpeg 4.4, through `ff_get_encode_buffer`): a packet then
    /// costs one `AVBufferRef` instead of `av_buffer_realloc`'s three allocations. Other encoders never
    /// call the hook (FFmpeg 5.1's AAC encoder writes into its own buffer and copies it out).
    ///
    /// Only for an encoder without FFmpeg's frame threads (`AV_CODEC_CAP_FRAME_THREADS`): the hook then
    /// runs inside `avcodec_send_frame` and `avcodec_receive_packet`, on the caller's thread, as this
    /// class (not `Sendable`) requires; with frame threads it would run on FFmpeg's, so it is not
    /// installed. `context.opaque` points at this pool, unretained: the owner of both must keep the
    /// pool as long as the context (no encode call, so no hook call, happens after either goes; a
    /// packet still held keeps its buffer, and `av_buffer_pool_uninit` waits for it).
    func supplyEncodedPackets(of context: UnsafeMutablePointer<AVCodecContext>) {
        guard let codec = context.pointee.codec,
            codec.pointee.capabilities & AV_CODEC_CAP_DR1 != 0,
            codec.pointee.capabilities & AV_CODEC_CAP_FRAME_THREADS == 0
        else { return }
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        context.pointee.get_encode_buffer = { context, packet, _ in
            guard let opaque = context?.pointee.opaque, let packet else { return mp_averror(EINVAL) }
            let pool = Unmanaged<PacketBufferPool>.fromOpaque(opaque).takeUnretainedValue()
            do throws(MediaError) {
                // `size` is what the encoder asked for; `attach` keeps it and zeroes the padding after it.
                _ = try pool.attach(to: packet, count: Int(packet.pointee.size))
                return 0
            } catch {
                return error.code == .invalidData ? mp_averror(EINVAL) : mp_averror(ENOMEM)
            }
        }
    }

    private func attach(to packet: UnsafeMutablePointer<AVPacket>, count: Int) throws(MediaError)
        -> UnsafeMutablePointer<UInt8>
    {
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
        packet.pointee.buf = buffer  // unreferenced (back to the pool) by av_packet_unref
        packet.pointee.data = data
        packet.pointee.size = Int32(count)
        return data
    }
}

@available(*, unavailable) extension PacketBufferPool: Sendable {}
