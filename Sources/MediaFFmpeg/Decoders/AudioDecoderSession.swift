internal import CMediaFFmpeg
import MediaCore

/// One open FFmpeg audio decoder and what turns its frames into trimmed, timed PCM samples: the
/// machinery ``AACDecoder`` and ``AudioDecoder`` share.
///
/// - Accepts: samples of `input` (the caller checks the format), each holding one or more packets of
///   the codec ``AudioDecoderSetup`` describes. A sample of a fixed-size-packet codec (IMA4, A-law,
///   µ-law) that is not a whole number of packets throws ``/MediaCore/MediaError/Code/decoderFailure``
///   before FFmpeg sees it; an empty sample throws ``/MediaCore/MediaError/Code/invalidData``; a packet
///   FFmpeg rejects throws ``/MediaCore/MediaError/Code/decoderFailure`` (the driver stamps its index).
/// - Emits: per input sample, one PCM sample of what FFmpeg decoded from it (however many frames
///   FFmpeg cut it into), in the requested layout, at the stream's rate and channel layout. When the
///   packet decodes to one frame and no conversion is asked for, the sample borrows FFmpeg's frame
///   (no copy; trims are a sub-range), else the frames are copied into recycled buffers.
/// - Trims: the first ``/MediaCore/MediaSample/trimAtStart`` decoded frames and the last
///   ``/MediaCore/MediaSample/trimAtEnd`` are dropped. When the decoder itself returns fewer frames than
///   the sample declares (an ALAC last packet that codes its own short length), the shortfall counts
///   against `trimAtEnd`, so that either way the output holds ``/MediaCore/MediaSample/validFrameCount``
///   frames.
/// - Timing: each output sample starts at its packet's presentation time (in 1/sample rate) plus the
///   frames trimmed at its start; a packet without a time continues from the previous output.
///
/// Decoders that hold frames back (`AV_CODEC_CAP_DELAY`) have their held frames paired with the
/// oldest packets not yet answered, one frame each when drained; the others answer each packet at once,
/// and a packet they return nothing for is forgotten.
final class AudioDecoderSession {
    /// What is remembered of a packet until its frames come out.
    private struct Pending {
        var frameCount: Int
        var trimAtStart: Int
        var trimAtEnd: Int
        var presentationTime: MediaTime
    }

    /// Decoded frames collected for one packet, all of one layout: the one frame itself while there
    /// is only one (the usual case: the sample then borrows its planes), else copied plane by plane.
    private struct Batch {
        var format: PCMFormat?
        /// The packet's only frame so far, not copied.
        var slot: FrameSlot?
        /// The frames copied, when the packet gave more than one; emptied arrays (capacity kept) otherwise.
        var planes: [[UInt8]] = []
        var frames = 0

        /// Empties the batch, keeping the arrays' capacity.
        mutating func reset() {
            format = nil
            slot = nil
            frames = 0
            for plane in planes.indices { planes[plane].removeAll(keepingCapacity: true) }
        }
    }

    /// The stream's format, as the first sample gave it.
    let input: AudioFormat
    private let setup: AudioDecoderSetup
    private let output: AudioFormat
    private let codec: CodecContext
    /// The decoded frames the emitted samples borrow their planes from.
    private let frames = FramePool()
    /// The emitted samples, reused once the consumer has let go of the last one.
    private var samples = SampleRecycler()
    private let packet: Packet
    /// The buffers of the packets given to the decoder.
    private let packetBuffers = PacketBufferPool()
    private let holdsFrames: Bool
    private var converter: Resampler?
    private var pending: [Pending] = []
    private var pendingHead = 0
    private var batch = Batch()
    private var nextTime: MediaTime
    private let timescale: Int32

    /// Opens FFmpeg's decoder for `setup` on a stream of `input`, producing `pcm`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidData`` for a rate or channel count of zero,
    ///   ``/MediaCore/MediaError/Code/unavailable`` when this FFmpeg build lacks the decoder,
    ///   ``/MediaCore/MediaError/Code/decoderFailure`` when it refuses the configuration
    ///   (`avcodec_open2`).
    init(input: AudioFormat, setup: AudioDecoderSetup, output pcm: PCMFormat) throws(MediaError) {
        guard let decoder = avcodec_find_decoder(setup.codecID) else {
            throw MediaError(
                .unavailable, "this FFmpeg build has no \(setup.name) decoder", ffmpegCall: "avcodec_find_decoder")
        }
        guard input.sampleRate > 0, input.channelCount > 0 else {
            throw MediaError(
                .invalidData,
                "\(setup.name) format has \(input.sampleRate) Hz and \(count: input.channelCount, "channel")")
        }
        self.input = input
        self.setup = setup
        holdsFrames = decoder.pointee.capabilities & Int32(AV_CODEC_CAP_DELAY) != 0
        timescale = Int32(clamping: input.sampleRate)
        nextTime = MediaTime(value: 0, timescale: timescale)
        output = .pcm(pcm, sampleRate: input.sampleRate, channelLayout: input.channelLayout)
        codec = try CodecContext(codec: decoder)
        packet = try Packet()
        let ctx = codec.raw
        try codec.setExtradata(setup.extradata)
        ctx.pointee.sample_rate = Int32(clamping: input.sampleRate)
        ctx.pointee.block_align = Int32(clamping: setup.blockAlign)
        ctx.pointee.bits_per_coded_sample = Int32(clamping: setup.bitsPerCodedSample)
        var layout = input.channelLayout.avChannelLayout
        defer { av_channel_layout_uninit(&layout) }
        try check(av_channel_layout_copy(&ctx.pointee.ch_layout, &layout), calling: "av_channel_layout_copy")
        // The priming arrives as the samples' trims (from the container, as the demuxer found it); a
        // decoder that would skip it itself as well (libavcodec's Opus decoder skips its header's
        // pre-skip) only marks it (`AV_FRAME_DATA_SKIP_SAMPLES`), so it is trimmed once.
        if setup.decoderSkipsPriming { ctx.pointee.flags2 |= AV_CODEC_FLAG2_SKIP_MANUAL }
        try check(avcodec_open2(ctx, decoder, nil), calling: "avcodec_open2", .decoderFailure)
    }

    /// Decodes one sample and emits its trimmed PCM (for a decoder that holds frames back, what it
    /// returns now).
    func decode(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        let size = sample.byteCount(plane: 0)
        guard size > 0 else { throw MediaError(.invalidData, "empty \(setup.name) packet") }
        guard size <= Int(Int32.max) - Int(AV_INPUT_BUFFER_PADDING_SIZE) else {
            throw MediaError(
                .invalidData,
                "\(setup.name) sample of \(count: size, "byte") is larger than an FFmpeg packet can be")
        }
        if setup.packetSize > 0, size % setup.packetSize != 0 {
            throw MediaError(
                .decoderFailure,
                "\(setup.name) sample of \(count: size, "byte") is not a whole number of \(setup.packetSize)-byte packets"
            )
        }
        let data = try packetBuffers.attach(to: packet, count: size)
        defer { av_packet_unref(packet.raw) }
        sample.withUnsafeBytes { source in
            if let base = source.baseAddress {
                data.update(from: base.assumingMemoryBound(to: UInt8.self), count: size)
            }
        }
        let pts = sample.timing.presentationTime
        pending.append(
            Pending(
                frameCount: sample.frameCount, trimAtStart: sample.trimAtStart, trimAtEnd: sample.trimAtEnd,
                presentationTime: pts.isNumeric ? pts.converted(to: timescale) : .invalid))
        do {
            try codec.sendPacket(packet)
            while let slot = try frames.receive(from: codec) { try collect(slot) }
        } catch {
            // The packet is not answered: forget it, so that a caller that goes on stays in step.
            batch.reset()
            if !holdsFrames { _ = popPending() }
            throw error
        }
        if batch.frames > 0 {
            try emitBatch(for: popPending(), into: emit)
        } else if !holdsFrames {
            _ = popPending()
        }
    }

    /// Drains the decoder: each frame it still holds answers the oldest packet not yet answered.
    func drain(into emit: (MediaSample) throws -> Void) throws {
        try codec.sendPacket(nil)
        while let slot = try frames.receive(from: codec) {
            try collect(slot)
            try emitBatch(for: popPending(), into: emit)
        }
        samples.removeAll()
    }

    private func popPending() -> Pending {
        guard pendingHead < pending.count else {
            return Pending(frameCount: 0, trimAtStart: 0, trimAtEnd: 0, presentationTime: .invalid)
        }
        let info = pending[pendingHead]
        pendingHead += 1
        if pendingHead == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingHead = 0
        } else if pendingHead > 64 {
            pending.removeFirst(pendingHead)
            pendingHead = 0
        }
        return info
    }

    /// Adds the decoded frame in `slot` to the batch: kept as it is when it is the packet's first,
    /// else copied after the frames before it (the first one copied too).
    private func collect(_ slot: FrameSlot) throws {
        let f = slot.frame.raw.pointee
        let count = Int(f.nb_samples)
        let channels = Int(f.ch_layout.nb_channels)
        guard let decodedFormat = PCMFormat(AVSampleFormat(f.format)), channels == input.channelCount else {
            throw MediaError(
                .decoderFailure,
                "the \(setup.name) decoder produced \(count: channels, "channel") of sample format \(f.format); the stream declares \(input.channelCount)"
            )
        }
        if setup.checksSampleRate, Int(f.sample_rate) != input.sampleRate {
            throw MediaError(
                .decoderFailure,
                "the \(setup.name) decoder produced \(f.sample_rate) Hz; the stream declares \(input.sampleRate) Hz")
        }
        let planeCount = decodedFormat.isInterleaved ? 1 : channels
        if let format = batch.format {
            guard format == decodedFormat else {
                throw MediaError(
                    .decoderFailure,
                    "the \(setup.name) decoder changed its sample format from \(format) to \(decodedFormat) within a packet"
                )
            }
        } else {
            batch.format = decodedFormat
            if batch.planes.count != planeCount { batch.planes = Array(repeating: [], count: planeCount) }
        }
        guard count > 0 else { return }
        let bytes = count * decodedFormat.sampleType.bytesPerSample * (decodedFormat.isInterleaved ? channels : 1)
        for plane in 0..<planeCount where f.extended_data[plane] == nil {
            throw MediaError(.decoderFailure, "the \(setup.name) decoder returned no data for plane \(plane)")
        }
        if batch.frames == 0 {
            batch.slot = slot
            batch.frames = count
            return
        }
        if let first = batch.slot {
            // A second frame for this packet: the first is copied, and this one after it.
            let firstBytes = bytes / count * batch.frames
            for plane in 0..<planeCount {
                batch.planes[plane].append(
                    contentsOf: UnsafeBufferPointer(
                        start: first.frame.raw.pointee.extended_data[plane], count: firstBytes))
            }
            batch.slot = nil
        }
        for plane in 0..<planeCount {
            batch.planes[plane].append(contentsOf: UnsafeBufferPointer(start: f.extended_data[plane], count: bytes))
        }
        batch.frames += count
    }

    /// Emits the batch as one sample, trimmed as its packet says and converted if asked; empties it.
    /// The sample borrows the decoder's frame when the packet gave one and no conversion is asked for.
    private func emitBatch(for info: Pending, into emit: (MediaSample) throws -> Void) throws {
        defer { batch.reset() }
        guard let decodedFormat = batch.format else { return }
        let total = batch.frames
        // Frames the decoder left out itself (a short last ALAC packet) already account for that much
        // of the end trim.
        let shortfall = info.frameCount > total ? info.frameCount - total : 0
        let start = min(max(0, info.trimAtStart), total)
        let count = max(0, total - start - max(0, info.trimAtEnd - shortfall))
        let time =
            info.presentationTime.isNumeric
            ? info.presentationTime + MediaTime(value: Int64(start), timescale: timescale) : nextTime
        nextTime = time + MediaTime(value: Int64(count), timescale: timescale)
        guard count > 0 else { return }

        let stride = decodedFormat.sampleType.bytesPerSample * (decodedFormat.isInterleaved ? input.channelCount : 1)
        let kept = (start * stride)..<((start + count) * stride)
        let planeCount = decodedFormat.isInterleaved ? 1 : input.channelCount
        let decoded = AudioFormat.pcm(decodedFormat, sampleRate: input.sampleRate, channelLayout: input.channelLayout)
        let timing = SampleTiming(
            presentationTime: time, decodeTime: time, duration: MediaTime(value: Int64(count), timescale: timescale))
        guard decoded != output else {
            let sample: MediaSample
            if let slot = batch.slot {
                sample = samples.make(
                    format: .audio(decoded), timing: timing, frameCount: count, planeCount: planeCount, owner: slot
                ) { plane in
                    UnsafeRawBufferPointer(
                        rebasing: UnsafeRawBufferPointer(
                            start: slot.frame.raw.pointee.extended_data[plane], count: kept.upperBound)[kept])
                }
            } else {
                sample = samples.make(
                    format: .audio(decoded), timing: timing, frameCount: count, planeCount: planeCount
                ) { plane, bytes in bytes.append(contentsOf: batch.planes[plane][kept]) }
            }
            return try emit(sample)
        }
        let planes =
            batch.slot.map { slot in
                (0..<planeCount).map { plane in
                    Array(
                        UnsafeRawBufferPointer(
                            start: slot.frame.raw.pointee.extended_data[plane], count: kept.upperBound)[kept])
                }
            } ?? batch.planes.map { Array($0[kept]) }
        if converter?.input != decoded { converter = try Resampler(from: decoded, to: output) }
        guard let converter else { return }
        let converted = try converter.convert(planes: planes, frameCount: count)
        try emit(
            MediaSample(
                format: .audio(output), planes: converted.planes, timing: timing, frameCount: converted.frames))
    }
}

@available(*, unavailable) extension AudioDecoderSession: Sendable {}
