internal import CMediaFFmpeg
import MediaBitstream
import MediaCore

/// One selected stream of a ``ContainerDemuxer``: turns its packets into samples in their canonical
/// form, in read order (the conversion has state: the priming still to trim, the parameter sets seen),
/// and queues the samples read while another stream's source was asking.
final class ContainerStreamReader {
    let layout: ContainerStreamLayout
    /// The format of the samples handed out last (ADTS headers and in-band parameter sets can change it).
    private(set) var format: MediaFormat
    private var queue: [MediaSample] = []
    private var head = 0
    /// Bytes in the queued samples.
    private(set) var queuedBytes = 0
    /// Priming frames still to trim from the next packets (`AV_PKT_DATA_SKIP_SAMPLES` can exceed one packet).
    private var pendingSkip = 0
    private var sawFirstPacket = false
    private var discontinuityPending = false
    /// In time base ticks, where the next packet starts if it has no time stamp: the last one's end.
    private var untimedClock: Int64 = 0
    /// After a seek, video samples are dropped until a keyframe.
    private var awaitingKeyframe = false
    /// A conversion error of a packet queued for this stream, thrown when its source gets there.
    private var pendingError: MediaError?
    /// The packets whose bytes samples borrow (those the conversion leaves unchanged).
    private let slots = PacketSlotPool()
    /// Makes the borrowing samples: the last one's storage is reused once every consumer let go of it.
    private var recycler = SampleRecycler()

    init(layout: ContainerStreamLayout, format: MediaFormat) {
        self.layout = layout
        self.format = format
    }

    // MARK: Queue

    var queuedCount: Int { queue.count - head }

    func enqueue(_ sample: MediaSample) {
        queue.append(sample)
        queuedBytes += sample.byteCount
    }

    /// Keeps `error` to throw once the samples queued before it are taken.
    func enqueue(_ error: MediaError) {
        if pendingError == nil { pendingError = error }
    }

    /// The oldest queued sample; throws a queued conversion error once the samples before it are gone.
    func dequeue() throws(MediaError) -> MediaSample? {
        guard head < queue.count else {
            if let error = pendingError {
                pendingError = nil
                throw error
            }
            return nil
        }
        let sample = queue[head]
        head += 1
        queuedBytes -= sample.byteCount
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 {
            queue.removeFirst(head)
            head = 0
        }
        return sample
    }

    /// After a seek: nothing queued, no priming left to trim, the next sample marked as a discontinuity.
    func reset() {
        queue.removeAll()
        head = 0
        queuedBytes = 0
        pendingSkip = 0
        pendingError = nil
        discontinuityPending = true
        awaitingKeyframe = layout.stream.isVideo
    }

    // MARK: Conversion

    /// The sample for `packet` (of this stream), or `nil` when nothing of it remains (an H.264
    /// packet of parameter sets only) or when it is dropped (video before the first keyframe after a
    /// seek).
    ///
    /// When the conversion leaves the bytes as they are (AAC and other audio in MP4, Matroska and the
    /// like, little-endian PCM, H.264 in MP4 or Matroska with 4-byte lengths and no in-band parameter
    /// sets), the sample borrows them: the packet is moved into a ``PacketSlot`` (`packet` is left
    /// blank) and nothing is copied. Otherwise (big-endian or signed 8-bit PCM, ADTS, Annex-B H.264,
    /// other AVCC lengths, packets with SPS or PPS, which become the canonical form) the sample holds a
    /// rewritten copy.
    func sample(from packet: UnsafeMutablePointer<AVPacket>) throws(MediaError) -> MediaSample? {
        let p = packet.pointee
        let payload = UnsafeRawBufferPointer(start: p.data, count: p.data == nil ? 0 : Int(max(0, p.size)))
        // The rewritten bytes; `nil` while they are the packet's own.
        var rewritten: [UInt8]?
        // The AVCC size of Annex-B H.264, written as AVCC into a recycled sample; `nil` for other packets.
        var annexBSize: Int?
        var pts = layout.time(p.pts)
        var dts = layout.time(p.dts)
        if !pts.isValid && !dts.isValid {
            // No time stamps at all (a raw .h264 stream): decode order at the packets' durations, as
            // the ffmpeg CLI times such a stream for `-c copy`: starting the decoder's reordering delay
            // (`has_b_frames` frames) before zero, presentation time = decode time.
            if !sawFirstPacket, p.duration > 0 {
                untimedClock = -Int64(layout.videoDelay) * p.duration
            }
            dts = layout.time(untimedClock)
            pts = dts
        }
        let start = p.dts != mp_nopts_value() ? p.dts : p.pts != mp_nopts_value() ? p.pts : untimedClock
        if p.duration > 0 { untimedClock = start.addingReportingOverflow(p.duration).partialValue }
        var timing = SampleTiming(
            presentationTime: pts, decodeTime: dts.isValid ? dts : pts,
            duration: p.duration > 0 ? layout.time(p.duration) : .invalid)
        var flags: MediaSample.Flags = p.flags & AV_PKT_FLAG_KEY != 0 ? .keyframe : []
        var frameCount = 0
        var trimAtStart = 0
        var trimAtEnd = 0

        switch layout.form {
        case .unsupported:
            return nil
        case .pcm(let swap, let signed8):
            if swap > 1 || signed8 {
                var bytes = Array(payload)
                if swap > 1 { Self.reverseEach(swap, in: &bytes) }
                if signed8 { for i in bytes.indices { bytes[i] ^= 0x80 } }
                rewritten = bytes
            }
            frameCount = layout.bytesPerFrame > 0 ? payload.count / layout.bytesPerFrame : 0
            if !timing.duration.isValid, layout.sampleRate > 0 {
                timing.duration = MediaTime(value: Int64(frameCount), timescale: Int32(clamping: layout.sampleRate))
            }
            flags = .keyframe
        case .aac(let adts):
            flags = .keyframe
            if adts {
                let bytes = try stripADTS(Array(payload))
                rewritten = bytes
                (frameCount, trimAtStart, trimAtEnd) = audioTrims(packet, bytes: bytes)
            } else {
                (frameCount, trimAtStart, trimAtEnd) = audioTrims(packet, bytes: payload)
            }
        case .passthrough:
            if layout.stream.isAudio {
                flags = .keyframe
                (frameCount, trimAtStart, trimAtEnd) = audioTrims(packet, bytes: payload)
            } else {
                frameCount = 1
            }
        case .h264AVCC(let lengthSize):
            frameCount = 1
            // Already the canonical form, with nothing to take into the format: borrowed as it is.
            if lengthSize == 4, Self.isPlainPictureAVCC(payload) { break }
            // In-band parameter sets (GStreamer's h264parse repeats them before IDRs) also go into the
            // format; the sample keeps every NAL unit the file has, as a remux must. Lengths of another
            // size become 4 bytes; zero-length NAL units are dropped (AVCCParser's rule, as every stage).
            var bytes = Array(payload)
            var parser = try AVCCParser(lengthSize: lengthSize)
            let units = try parser.all(in: bytes).map { bytes[$0.range] }
            if lengthSize != 4 || parser.skippedEmptyNALUnits > 0 { bytes = try H264Bitstream.avcc(units) }
            takeParameters(from: units)
            rewritten = bytes
        case .h264AnnexB:
            // Annex-B to AVCC, every NAL unit kept (SPS, PPS and AUD too, as `ffmpeg -c copy` keeps
            // them); the parameter sets also go into the format. One walk in place for the types and
            // the AVCC size; a second writes the AVCC straight into a recycled sample, below.
            frameCount = 1
            var picture = false
            var parameterSets = false
            var size = 0
            H264Bitstream.forEachAnnexBNALUnit(in: payload) { unit in
                size += 4 + unit.count
                switch H264Bitstream.nalUnitType(of: unit) {
                case .sps, .pps: parameterSets = true
                case .accessUnitDelimiter: break
                case .idr: flags.insert(.keyframe); picture = true  // an IDR slice
                default: picture = true
                }
            }
            // Arrays only for a packet that carries parameter sets (an IDR's, typically).
            if parameterSets { takeParameters(from: H264Bitstream.annexBNALUnits(payload)) }
            guard picture else { return nil }
            annexBSize = size
        }
        sawFirstPacket = true
        if awaitingKeyframe {
            guard flags.contains(.keyframe) else { return nil }
            awaitingKeyframe = false
        }
        if discontinuityPending {
            flags.insert(.discontinuity)
            discontinuityPending = false
        }
        if let annexBSize {
            return try recycler.make(
                format: format, timing: timing, frameCount: frameCount, flags: flags, trimAtStart: trimAtStart,
                trimAtEnd: trimAtEnd
            ) { (avcc) throws(MediaError) in
                avcc.reserveCapacity(annexBSize)
                try H264Bitstream.forEachAnnexBNALUnit(in: payload) { (unit) throws(MediaError) in
                    try H264Bitstream.appendAVCC(unit, to: &avcc)
                }
            }
        }
        guard rewritten == nil, p.buf != nil else {
            // Rewritten, or (never from av_read_frame, which returns refcounted packets) not
            // refcounted, so not to be kept past the next read: a copy.
            return MediaSample(
                format: format, data: rewritten ?? Array(payload), timing: timing, frameCount: frameCount,
                flags: flags, trimAtStart: trimAtStart, trimAtEnd: trimAtEnd)
        }
        let slot = try slots.adopt(packet)
        return recycler.make(
            format: format, timing: timing, frameCount: frameCount, flags: flags, trimAtStart: trimAtStart,
            trimAtEnd: trimAtEnd, planeCount: 1, owner: slot
        ) { _ in slot.payload }
    }

    /// Whether `payload` is 4-byte-length AVCC as the canonical form has it (every length inside the
    /// packet, none zero) and holds no SPS or PPS (which would go into the format): then the sample is
    /// the packet's bytes as they are. Anything else, a malformed packet included, takes the rewriting
    /// path, which refuses or repairs it as before. One walk, in place, allocating nothing.
    private static func isPlainPictureAVCC(_ payload: UnsafeRawBufferPointer) -> Bool {
        var parser: AVCCParser
        do throws(MediaError) {
            parser = try AVCCParser(lengthSize: 4)
            while let unit = try parser.next(in: payload) {
                let type = H264Bitstream.nalUnitType(of: payload[unit.range])
                if type == .sps || type == .pps { return false }
            }
        } catch {
            return false
        }
        return parser.skippedEmptyNALUnits == 0
    }

    /// In-band SPS and PPS among `units` that differ from the format's replace them (for this and the
    /// following samples).
    private func takeParameters(from units: [ArraySlice<UInt8>]) {
        guard let inBand = H264Bitstream.parameterSets(in: units), case .video(var video) = format, video.h264 != inBand
        else { return }
        video.h264 = inBand
        format = .video(video)
    }

    /// The frames a compressed audio packet decodes to and the trims, from what FFmpeg 5.1 gives.
    ///
    /// The frame count is the codec's fixed frame size (AAC 1024, MP3 1152), for Opus what the
    /// packet's TOC byte says, else the packet's duration when it is a whole number of frames, else
    /// (no duration: ALAC in CAF) the codec's nominal frames per packet or block. The trims:
    ///
    /// - `AV_PKT_DATA_SKIP_SAMPLES` side data: its first field (frames to skip at the start) is the
    ///   encoder priming. libavformat puts all of it on the first packet (mov: the edit list's media
    ///   time, `sc->start_pad`; mp3: the LAME tag's delay), even when it is longer than that packet
    ///   (Apple's 2112), so it is spread here over as many packets as it covers, as `trimAtStart`. Its
    ///   second field (frames to discard at the end: Matroska's `DiscardPadding`, the LAME tag's
    ///   padding) becomes `trimAtEnd`.
    /// - Without side data on the first packet: in a time base of one tick per frame, a negative
    ///   first presentation time (an edit list starting later than the media) is that many frames of
    ///   priming; otherwise the codec parameters' `initial_padding` (Matroska's `CodecDelay`: Opus's
    ///   312-frame pre-skip, which a 1/1000 time base cannot state exactly) is.
    /// - The end padding of an MP4/MOV track is the last sample's shorter duration in `stts` (FFmpeg's
    ///   mov muxer writes 896 for a last packet of which 896 of 1024 frames are valid, GStreamer's
    ///   mp4mux likewise; the edit list's duration agrees): when the time base is one tick per frame, a
    ///   packet shorter than the codec's frame has the missing frames as `trimAtEnd`. So Σ frameCount −
    ///   trims is the track's length after the edit list. (ffmpeg 5.1 itself drops the priming when
    ///   decoding but keeps this padding; it reads no `iTunSMPB` tag: priming and length come from the
    ///   edit list and `stts` only.)
    private func audioTrims<Bytes: RandomAccessCollection<UInt8>>(
        _ packet: UnsafeMutablePointer<AVPacket>, bytes: Bytes
    ) -> (frames: Int, start: Int, end: Int) where Bytes.Index == Int {
        let p = packet.pointee
        let frameCount =
            layout.isOpus && layout.sampleRate == 48_000
            ? (OpusPacket.frameCount(bytes) ?? 0)
            : layout.framesPerPacket > 0
                ? layout.framesPerPacket
                : p.duration > 0
                    ? (layout.frames(p.duration) ?? 0) : layout.framesWithoutDuration(byteCount: bytes.count)
        var skip = 0
        var discard = 0
        var hasSideData = false
        var size = 0
        if let data = av_packet_get_side_data(packet, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 8 {
            skip = Int(UInt32(data[0]) | UInt32(data[1]) << 8 | UInt32(data[2]) << 16 | UInt32(data[3]) << 24)
            discard = Int(UInt32(data[4]) | UInt32(data[5]) << 8 | UInt32(data[6]) << 16 | UInt32(data[7]) << 24)
            hasSideData = true
        }
        let exactTimeBase = layout.timeBase == (1, Int64(layout.sampleRate))
        if hasSideData {
            pendingSkip += skip
        } else if !sawFirstPacket {
            if exactTimeBase, p.pts != mp_nopts_value(), p.pts < 0 {
                pendingSkip += Int(-p.pts)
            } else {
                pendingSkip += layout.initialPadding
            }
        }
        let start = min(pendingSkip, frameCount)
        pendingSkip -= start
        var end = 0
        if discard > 0 {
            end = discard
        } else if exactTimeBase, p.duration > 0, p.duration < frameCount {
            end = frameCount - Int(p.duration)
        }
        end = min(end, frameCount - start)
        return (frameCount, start, end)
    }

    /// The raw access unit behind an ADTS header; the first header also gives the AudioSpecificConfig
    /// (and a later one that differs changes the format).
    private func stripADTS(_ bytes: [UInt8]) throws(MediaError) -> [UInt8] {
        // MediaBitstream's ADTSHeader, the one ADTSParser reads: sync word, layer and rate index checked.
        let header = try ADTSHeader(parsing: bytes)
        guard header.frameLength <= bytes.count else {
            throw MediaError.invalidData(
                "ADTS aac_frame_length \(header.frameLength) does not fit the \(bytes.count)-byte packet", at: 3)
        }
        guard header.rawDataBlocks == 0 else {
            throw MediaError(
                .unsupportedFormat,
                "ADTS frame holds \(header.rawDataBlocks + 1) raw data blocks; only one per frame can become one "
                    + "access unit")
        }
        guard header.frameLength == bytes.count else {
            throw MediaError(
                .unsupportedFormat,
                "AAC packet of \(count: bytes.count, "byte") holds more than one ADTS frame (the first is \(count: header.frameLength, "byte"))"
            )
        }
        if case .audio(var audio) = format, let config = header.audioSpecificConfig, let rate = header.sampleRate,
            audio.magicCookie != config.bytes || audio.sampleRate != rate
        {
            audio.magicCookie = config.bytes
            audio.sampleRate = rate
            format = .audio(audio)
        }
        return Array(bytes[header.headerLength..<header.frameLength])
    }

    /// Reverses each `width`-byte value in place: big-endian PCM to little-endian.
    private static func reverseEach(_ width: Int, in bytes: inout [UInt8]) {
        var i = 0
        while i + width <= bytes.count {
            bytes[i..<(i + width)].reverse()
            i += width
        }
    }
}

@available(*, unavailable) extension ContainerStreamReader: Sendable {}
