internal import CMediaFFmpeg
import MediaCore

// FFmpeg's send/receive API, once for the encoders and decoders: send one input (or nil to drain),
// then take outputs until the codec wants more input (EAGAIN) or has ended (EOF).
extension CodecContext {
    /// Gives the encoder `frame`, or `nil` to say the input has ended (it then drains).
    func sendFrame(_ frame: Frame?) throws(MediaError) {
        try check(avcodec_send_frame(raw, frame?.raw), calling: "avcodec_send_frame", .encoderFailure)
    }

    /// Gives the decoder `packet`, or `nil` to say the input has ended (it then drains).
    func sendPacket(_ packet: Packet?) throws(MediaError) {
        try check(avcodec_send_packet(raw, packet?.raw), calling: "avcodec_send_packet", .decoderFailure)
    }

    /// Gives the encoder `frame` (`nil` drains it), then receives every packet it has ready, as
    /// ``receivePackets(into:_:)`` does.
    func encode(_ frame: Frame?, into packet: Packet, _ body: () throws -> Void) throws {
        try sendFrame(frame)
        try receivePackets(into: packet, body)
    }

    /// Receives every packet the encoder has ready into `packet` and calls `body` for each; the packet
    /// is unreferenced after `body`.
    func receivePackets(into packet: Packet, _ body: () throws -> Void) throws {
        while true {
            let code = avcodec_receive_packet(raw, packet.raw)
            if code == mp_averror_eagain() || code == mp_averror_eof() { return }
            try check(code, calling: "avcodec_receive_packet", .encoderFailure)
            defer { av_packet_unref(packet.raw) }
            try body()
        }
    }

    /// Receives every frame the decoder has ready into `frame` and calls `body` for each; the frame is
    /// unreferenced after `body`.
    func receiveFrames(into frame: Frame, _ body: () throws -> Void) throws {
        while true {
            let code = avcodec_receive_frame(raw, frame.raw)
            if code == mp_averror_eagain() || code == mp_averror_eof() { return }
            try check(code, calling: "avcodec_receive_frame", .decoderFailure)
            defer { av_frame_unref(frame.raw) }
            try body()
        }
    }
}
