internal import CMediaFFmpeg
import MediaBitstream
import MediaCore

/// One open FFmpeg H.264 decoder (`avcodec_send_packet` / `avcodec_receive_frame`): access units in as
/// Annex-B packets, decoded frames out into a ``FramePool``. What ``H264Decoder`` runs on its own thread
/// (FFmpeg's frame threads inside), and what each worker of ``H264GOPWorkers`` runs single-threaded.
/// Timing and samples are ``VideoFrameOutput``'s business, on the decoder's thread.
final class H264DecoderCore {
    private let codec: CodecContext
    private let packet: Packet
    /// The buffers of the packets given to the decoder.
    private let packetBuffers = PacketBufferPool()
    /// The decoded frames, which the emitted samples borrow.
    let frames = FramePool()

    /// A decoder with `threads` frame threads (0: FFmpeg's automatic count, one more than the CPUs),
    /// taking packet times in 1/`timescale` s, with `parameters` as its extradata when given.
    init(threads: Int32, timescale: Int32, parameters: H264Parameters?) throws(MediaError) {
        guard let decoder = avcodec_find_decoder(AV_CODEC_ID_H264) else {
            throw MediaError(.unavailable, "this FFmpeg build has no H.264 decoder", ffmpegCall: "avcodec_find_decoder")
        }
        codec = try CodecContext(codec: decoder)
        packet = try Packet()
        let ctx = codec.raw
        ctx.pointee.pkt_timebase = AVRational(num: 1, den: timescale)
        ctx.pointee.thread_count = threads
        if let parameters {
            // The parameter sets as Annex-B extradata: FFmpeg's h264 decoder reads start codes there.
            try codec.setExtradata(
                H264Bitstream.annexB(parameters.sequenceParameterSets + parameters.pictureParameterSets))
        }
        try check(avcodec_open2(ctx, decoder, nil), calling: "avcodec_open2", .unsupportedFormat)
    }

    /// Gives the decoder `unit` (its sample already walked by ``H264AccessUnitScan``, whose Annex-B
    /// size is `annexBSize`, or `nil` to walk it again).
    func send(_ unit: H264AccessUnit, annexBSize: Int? = nil) throws(MediaError) {
        try unit.sample.withUnsafeBytes { (raw) throws(MediaError) in
            let bytes = raw.assumingMemoryBound(to: UInt8.self)
            var size = annexBSize ?? 0
            if annexBSize == nil { size = try H264AccessUnitScan(avcc: bytes).annexBSize }
            try fillPacket(avcc: bytes, size: size, unit.inBand)
        }
        defer { av_packet_unref(packet.raw) }
        packet.raw.pointee.pts = unit.pts
        packet.raw.pointee.dts = unit.dts
        if let duration = unit.duration { packet.raw.pointee.duration = duration }
        if unit.isKeyframe { packet.raw.pointee.flags |= AV_PKT_FLAG_KEY }
        try codec.sendPacket(packet)
    }

    /// Says the input has ended: the decoder drains the frames it holds.
    func sendEnd() throws(MediaError) { try codec.sendPacket(nil) }

    /// The next decoded frame, or `nil` when the decoder wants more input or has drained.
    func receive() throws(MediaError) -> FrameSlot? { try frames.receive(from: codec) }

    /// Forgets everything decoded (and ends draining): the decoder takes a new stream from an IDR access
    /// unit next (`avcodec_flush_buffers`). The parameter sets it has seen stay.
    func reset() { avcodec_flush_buffers(codec.raw) }

    /// Puts the access unit `avcc` (`size` bytes as Annex-B) into ``packet``, after the parameter sets
    /// `inBand`: written straight into the packet's buffer, without an array per NAL unit.
    private func fillPacket(avcc bytes: UnsafeBufferPointer<UInt8>, size: Int, _ inBand: [[UInt8]]) throws(MediaError) {
        let total = inBand.reduce(size) { $0 + H264Bitstream.startCode.count + $1.count }
        guard total < Int(Int32.max) - Int(AV_INPUT_BUFFER_PADDING_SIZE) else {
            throw MediaError(.invalidData, "H.264 access unit of \(total) bytes is too large for FFmpeg")
        }
        let output = try packetBuffers.attach(to: packet, count: total)
        var written = 0
        func put(_ unit: UnsafeBufferPointer<UInt8>) {
            for byte in H264Bitstream.startCode {
                output[written] = byte
                written += 1
            }
            if let base = unit.baseAddress { (output + written).update(from: base, count: unit.count) }
            written += unit.count
        }
        for unit in inBand { unit.withUnsafeBufferPointer(put) }
        var parser = try AVCCParser()
        while let unit = try parser.next(in: bytes) { put(UnsafeBufferPointer(rebasing: bytes[unit.range])) }
    }
}

@available(*, unavailable) extension H264DecoderCore: Sendable {}
