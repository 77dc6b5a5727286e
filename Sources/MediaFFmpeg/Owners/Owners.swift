internal import CMediaFFmpeg
import MediaCore

// One owner class per FFmpeg allocation. Each holds its pointer privately, frees it in `deinit`, and
// is neither Sendable nor exposed: FFmpeg pointers never leave these wrappers' users in MediaFFmpeg.

/// Owns an `AVCodecContext` (freed with `avcodec_free_context`).
final class CodecContext {
    let raw: UnsafeMutablePointer<AVCodecContext>
    private var owned: UnsafeMutablePointer<AVCodecContext>?

    init(codec: UnsafePointer<AVCodec>) throws(MediaError) {
        guard let context = avcodec_alloc_context3(codec) else {
            throw MediaError(.outOfMemory, "cannot allocate a codec context", ffmpegCall: "avcodec_alloc_context3")
        }
        raw = context
        owned = context
        FFmpeg.didAllocate()
    }

    deinit {
        avcodec_free_context(&owned)
        FFmpeg.didFree()
    }

    /// Gives the (not yet opened) context a padded copy of `bytes` as its extradata, which
    /// `avcodec_free_context` frees; nothing for no bytes.
    func setExtradata(_ bytes: [UInt8]) throws(MediaError) {
        guard !bytes.isEmpty else { return }
        guard let buffer = av_mallocz(bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
            throw MediaError(
                .outOfMemory, "cannot allocate \(bytes.count) bytes of extradata", ffmpegCall: "av_mallocz")
        }
        let extradata = buffer.assumingMemoryBound(to: UInt8.self)
        extradata.update(from: bytes, count: bytes.count)
        raw.pointee.extradata = extradata
        raw.pointee.extradata_size = Int32(bytes.count)
    }
}

@available(*, unavailable) extension CodecContext: Sendable {}

/// Owns an `AVFrame` (freed with `av_frame_free`).
final class Frame {
    let raw: UnsafeMutablePointer<AVFrame>
    private var owned: UnsafeMutablePointer<AVFrame>?

    init() throws(MediaError) {
        guard let frame = av_frame_alloc() else {
            throw MediaError(.outOfMemory, "cannot allocate a frame", ffmpegCall: "av_frame_alloc")
        }
        raw = frame
        owned = frame
        FFmpeg.didAllocate()
    }

    deinit {
        av_frame_free(&owned)
        FFmpeg.didFree()
    }
}

@available(*, unavailable) extension Frame: Sendable {}

/// Owns an `AVPacket` (freed with `av_packet_free`).
final class Packet {
    let raw: UnsafeMutablePointer<AVPacket>
    private var owned: UnsafeMutablePointer<AVPacket>?

    init() throws(MediaError) {
        guard let packet = av_packet_alloc() else {
            throw MediaError(.outOfMemory, "cannot allocate a packet", ffmpegCall: "av_packet_alloc")
        }
        raw = packet
        owned = packet
        FFmpeg.didAllocate()
    }

    deinit {
        av_packet_free(&owned)
        FFmpeg.didFree()
    }

    /// Appends the packet's payload to `bytes` (which allocates nothing when `bytes` has the capacity).
    func append(to bytes: inout [UInt8]) {
        guard let data = raw.pointee.data, raw.pointee.size > 0 else { return }
        bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(raw.pointee.size)))
    }
}

@available(*, unavailable) extension Packet: Sendable {}

/// Owns an `AVAudioFifo` (freed with `av_audio_fifo_free`): re-chunks audio into fixed-size frames.
final class AudioFifo {
    let raw: OpaquePointer

    init(sampleFormat: AVSampleFormat, channels: Int, capacity: Int) throws(MediaError) {
        guard let fifo = av_audio_fifo_alloc(sampleFormat, Int32(channels), Int32(capacity)) else {
            throw MediaError(.outOfMemory, "cannot allocate an audio FIFO", ffmpegCall: "av_audio_fifo_alloc")
        }
        raw = fifo
        FFmpeg.didAllocate()
    }

    deinit {
        av_audio_fifo_free(raw)
        FFmpeg.didFree()
    }

    var count: Int { Int(av_audio_fifo_size(raw)) }
}

@available(*, unavailable) extension AudioFifo: Sendable {}
