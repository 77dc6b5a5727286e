public import MediaCore

/// A push parser for H.264 Annex-B elementary streams (`.h264`): give it bytes in chunks of any size,
/// take out one AVCC sample per access unit.
///
/// ```swift
/// var parser = AnnexBAccessUnitParser()
/// for chunk in chunks {
///     parser.push(chunk)
///     while let accessUnit = try parser.next() { try decoder.process(accessUnit, into: show) }
/// }
/// parser.finish()
/// while let accessUnit = try parser.next() { try decoder.process(accessUnit, into: show) }
/// ```
///
/// It reads what x264, FFmpeg, GStreamer (`openh264enc`, `x264enc`) and hardware encoders write: 3- and
/// 4-byte start codes, trailing zero bytes, access unit delimiters, SEI, several slices per picture.
/// NAL units are grouped into access units as ITU-T H.264 section 7.4.1.2.3 says: after a VCL NAL unit of
/// the current access unit, an AUD, SPS, PPS, SEI or a NAL unit of type 14 to 18 starts the next one, and
/// so does a slice (types 1, 2, 5) whose `first_mb_in_slice` is 0 (the first slice of the next primary
/// picture; field pairs coded as two pictures therefore come out as two access units).
///
/// Each sample is one access unit in AVCC form (each NAL unit after its length in 4 big-endian bytes).
/// SPS, PPS and AUD NAL units are taken out of the payload, since the parameter sets travel in the
/// format; SEI and every other NAL unit stay. The format is `VideoFormat.h264` with every SPS and PPS
/// seen so far (in order of their ids; a set sent again with the same id replaces the old one), the
/// displayed (cropped) width and height of the SPS the access unit's slices refer to, and the frame rate
/// of that SPS's VUI timing information (`time_scale / (2 × num_units_in_tick)`), or `defaultFrameRate`
/// when it has none. Samples with an IDR slice carry ``/MediaCore/MediaSample/Flags/keyframe``, others
/// no flags.
///
/// Time stamps: an elementary stream has none, so decode and presentation time are both
/// `index × frame duration` of the access unit's frame rate, in decode order (frames are not reordered;
/// with B-frames the presentation times are in decode order too). The duration is one frame.
///
/// Format changes: when a parameter set changes (different bytes for an id, or a new id), the next
/// sample carries the new format and ``formatChangeCount`` goes up by one. Parameter sets repeated
/// unchanged before every IDR picture change nothing.
///
/// An access unit is returned once the first NAL unit of the next one has arrived, or at ``finish()``,
/// so the samples are the same however the input is split.
///
/// Errors (``/MediaCore/MediaError``, each with the byte offset in the stream): a slice before any SPS or
/// PPS, or one referring to a PPS (or a PPS referring to an SPS) not given
/// (``/MediaCore/MediaError/Code/invalidData``); a
/// NAL unit with `forbidden_zero_bit` set, input that is not empty but has no start code at all
/// (``/MediaCore/MediaError/Code/invalidData``); a slice header or parameter set cut short
/// (``/MediaCore/MediaError/Code/truncated``). After an error every call throws it again.
public struct AnnexBAccessUnitParser: PushParser, Sendable {
    /// The frame rate used when the SPS has no timing information: 25 fps, as FFmpeg's raw H.264
    /// demuxer assumes.
    public static let standardDefaultFrameRate = FrameRate(25, 1)

    private var scanner = AnnexBScanner()
    private let defaultFrameRate: FrameRate
    private var inputEnd = PushInputEnd()
    private var bytesPushed: Int64 = 0
    private var failure: MediaError?

    /// Parameter sets by id, with their parsed form.
    private var sequenceParameterSets: [Int: (nal: [UInt8], sps: H264SPS)] = [:]
    private var pictureParameterSets: [Int: (nal: [UInt8], pps: H264PPS)] = [:]
    /// Bumped whenever a parameter set is added or changed.
    private var parameterVersion = 0
    /// The format of the last sample, with the parameter version and SPS id it was made for.
    private var cachedFormat: (version: Int, spsId: Int, format: VideoFormat)?
    private var lastEmittedParameters: H264Parameters?

    /// The access unit being collected: its AVCC payload, whether it has a VCL NAL unit and an IDR
    /// slice, the SPS its first slice refers to. The payload becomes the sample's buffer and the
    /// recycled sample's emptied buffer becomes the next payload, so that in steady state (when the
    /// consumer lets go of each sample before asking for the next) nothing is allocated.
    private var payload: [UInt8] = []
    private var recycler = SampleRecycler()
    private var hasVCL = false
    private var hasIDR = false
    private var activeSPSId = 0

    /// Access units returned so far.
    public private(set) var accessUnitCount: Int64 = 0
    /// How many times the parameter sets changed after the first sample: each time, the next sample
    /// carries the new format.
    public private(set) var formatChangeCount = 0
    /// NAL units read so far.
    public private(set) var nalUnitCount: Int64 = 0
    /// Non-zero bytes before the first start code, skipped (see ``/MediaBitstream/AnnexBScanner/skippedLeadingBytes``).
    public var skippedLeadingBytes: Int { scanner.skippedLeadingBytes }

    /// A parser at the start of a stream, using `defaultFrameRate` when the SPS carries no timing
    /// information.
    public init(defaultFrameRate: FrameRate = AnnexBAccessUnitParser.standardDefaultFrameRate) {
        self.defaultFrameRate = defaultFrameRate.isValid ? defaultFrameRate : Self.standardDefaultFrameRate
    }

    /// Appends the next bytes of the stream. Bytes pushed after ``finish()`` make ``next()`` throw.
    public mutating func push(_ chunk: some Collection<UInt8>) {
        guard inputEnd.accept(chunk.count) else { return }
        bytesPushed += Int64(chunk.count)
        scanner.push(chunk)
    }

    /// Appends up to `count` bytes read from `input` without an intermediate array; returns how many
    /// (0 at the end of the input).
    mutating func append(from input: ForwardInput, upTo count: Int) throws(MediaError) -> Int {
        let got = try scanner.append(from: input, upTo: count)
        bytesPushed += Int64(got)
        return got
    }

    /// Says that the stream has ended, so that the last access unit can be returned.
    public mutating func finish() {
        inputEnd.finish()
        scanner.finish()
    }

    /// The next complete access unit, or `nil` when more input (or ``finish()``) is needed, or when
    /// everything has been returned.
    ///
    /// - Throws: see the type's documentation; after an error, the same error again.
    ///   ``/MediaCore/MediaError/Code/invalidArgument`` when bytes were pushed after ``finish()``.
    public mutating func next() throws(MediaError) -> MediaSample? {
        if let failure { throw failure }
        do throws(MediaError) {
            try inputEnd.check("AnnexBAccessUnitParser")
            while let nal = try scanner.nextNALUnitRange() {
                if let sample = try consume(scanner.buffer[nal.range], at: nal.offset) { return sample }
            }
            guard inputEnd.isFinished else { return nil }
            if nalUnitCount == 0 && bytesPushed > 0 {
                throw MediaError.invalidData("no Annex-B start code in the \(bytesPushed) bytes of input", at: 0)
            }
            return try takeAccessUnit()
        } catch {
            failure = error
            throw error
        }
    }

    /// Parses a whole stream into access units.
    public static func parse<C: Collection>(
        _ stream: C, defaultFrameRate: FrameRate = standardDefaultFrameRate
    ) throws(MediaError) -> [MediaSample] where C.Element == UInt8 {
        var parser = AnnexBAccessUnitParser(defaultFrameRate: defaultFrameRate)
        parser.push(stream)
        parser.finish()
        var samples: [MediaSample] = []
        while let sample = try parser.next() { samples.append(sample) }
        return samples
    }

    /// Adds `nal` to the current access unit, or ends it first when `nal` starts the next one; returns
    /// the ended access unit.
    private mutating func consume(_ nal: ArraySlice<UInt8>, at offset: Int64) throws(MediaError) -> MediaSample? {
        nalUnitCount += 1
        let header = try H264NALHeader(parsing: nal, baseOffset: offset)
        let type = header.nalUnitType.rawValue
        var slice: H264SliceHeaderStart?
        if type == 1 || type == 2 || type == 5 {
            slice = try H264SliceHeaderStart(nal: nal, offset: offset)
        }
        var ended: MediaSample?
        if hasVCL {
            let startsNext = (6...9).contains(type) || (14...18).contains(type) || slice?.firstMbInSlice == 0
            if startsNext { ended = try takeAccessUnit() }
        }
        switch type {
        case 7:
            try addSPS(nal, at: offset)
        case 8:
            try addPPS(nal, at: offset)
        case 9:
            break  // access_unit_delimiter_rbsp: implied by the sample boundary
        default:
            if (1...5).contains(type) {
                if !hasVCL {
                    try activate(slice, at: offset)
                }
                hasVCL = true
                if type == 5 { hasIDR = true }
            }
            appendLength(nal.count)
            payload.append(contentsOf: nal)
        }
        return ended
    }

    /// Checks that the first slice of an access unit has its parameter sets, and remembers the SPS.
    private mutating func activate(_ slice: H264SliceHeaderStart?, at offset: Int64) throws(MediaError) {
        guard !sequenceParameterSets.isEmpty else {
            throw MediaError.invalidData("no SPS before the first slice", at: offset)
        }
        guard !pictureParameterSets.isEmpty else {
            throw MediaError.invalidData("no PPS before the first slice", at: offset)
        }
        // Partitions B and C (types 3, 4) carry no PPS id: they keep the previous SPS.
        guard let slice else { return }
        guard let pps = pictureParameterSets[slice.picParameterSetId] else {
            throw MediaError.invalidData(
                "slice refers to PPS \(slice.picParameterSetId), which the stream did not give before it", at: offset)
        }
        guard sequenceParameterSets[pps.pps.seqParameterSetId] != nil else {
            throw MediaError.invalidData(
                "PPS \(slice.picParameterSetId) refers to SPS \(pps.pps.seqParameterSetId), which the stream did "
                    + "not give before the slice", at: offset)
        }
        activeSPSId = pps.pps.seqParameterSetId
    }

    /// Adds or replaces an SPS. One with the same bytes as a set already held (the usual repetition
    /// before every IDR picture) parsed then and would change nothing now: it is not parsed again.
    private mutating func addSPS(_ nal: ArraySlice<UInt8>, at offset: Int64) throws(MediaError) {
        if sequenceParameterSets.values.contains(where: { $0.nal[...] == nal }) { return }
        let bytes = Array(nal)
        let sps = try H264SPS(parsing: bytes, baseOffset: offset)
        let id = sps.seqParameterSetId
        if sequenceParameterSets[id]?.nal != bytes {
            sequenceParameterSets[id] = (bytes, sps)
            parameterVersion += 1
        }
    }

    /// Adds or replaces a PPS; a repeated one is not parsed again (see ``addSPS(_:at:)``).
    private mutating func addPPS(_ nal: ArraySlice<UInt8>, at offset: Int64) throws(MediaError) {
        if pictureParameterSets.values.contains(where: { $0.nal[...] == nal }) { return }
        let bytes = Array(nal)
        let pps = try H264PPS(parsing: bytes, baseOffset: offset)
        let id = pps.picParameterSetId
        if pictureParameterSets[id]?.nal != bytes {
            pictureParameterSets[id] = (bytes, pps)
            parameterVersion += 1
        }
    }

    /// Appends a 4-byte big-endian NAL unit length to the payload.
    private mutating func appendLength(_ length: Int) {
        let value = UInt32(truncatingIfNeeded: length)
        payload.append(UInt8(truncatingIfNeeded: value >> 24))
        payload.append(UInt8(truncatingIfNeeded: value >> 16))
        payload.append(UInt8(truncatingIfNeeded: value >> 8))
        payload.append(UInt8(truncatingIfNeeded: value))
    }

    /// The collected access unit as a sample, or nil when it holds no slice (parameter sets, SEI or
    /// delimiters alone, at the end of the stream, are not a picture). Resets the collection.
    private mutating func takeAccessUnit() throws(MediaError) -> MediaSample? {
        defer {
            payload.removeAll(keepingCapacity: true)
            hasVCL = false
            hasIDR = false
        }
        guard hasVCL else { return nil }
        let format = currentFormat()
        if let parameters = format.h264 {
            if let last = lastEmittedParameters, last != parameters { formatChangeCount += 1 }
            lastEmittedParameters = parameters
        }
        let rate = format.frameRate ?? defaultFrameRate
        let time = rate.time(ofFrame: accessUnitCount)
        let timing = SampleTiming(presentationTime: time, decodeTime: time, duration: rate.frameDuration)
        accessUnitCount += 1
        var collected: [UInt8] = []
        swap(&collected, &payload)
        let sample = recycler.make(
            format: .video(format), timing: timing, frameCount: 1, flags: hasIDR ? [.keyframe] : []
        ) { buffer in swap(&buffer, &collected) }  // the payload moves in; the old buffer comes out empty
        payload = collected
        return sample
    }

    /// The format for the parameter sets now known and the active SPS, made again only when they changed.
    private mutating func currentFormat() -> VideoFormat {
        if let cachedFormat, cachedFormat.version == parameterVersion, cachedFormat.spsId == activeSPSId {
            return cachedFormat.format
        }
        let parameters = H264Parameters(
            sequenceParameterSets: sequenceParameterSets.keys.sorted().compactMap { sequenceParameterSets[$0]?.nal },
            pictureParameterSets: pictureParameterSets.keys.sorted().compactMap { pictureParameterSets[$0]?.nal })
        let sps = sequenceParameterSets[activeSPSId]?.sps
        let format = VideoFormat.h264(
            width: sps?.width ?? 0, height: sps?.height ?? 0,
            frameRate: sps.flatMap(Self.frameRate(of:)) ?? defaultFrameRate, parameters: parameters)
        cachedFormat = (parameterVersion, activeSPSId, format)
        return format
    }

    /// `time_scale / (2 × num_units_in_tick)` of the SPS's VUI, reduced, when present and representable.
    static func frameRate(of sps: H264SPS) -> FrameRate? {
        guard let vui = sps.vui, let timeScale = vui.timeScale, let ticks = vui.numUnitsInTick,
            timeScale > 0, ticks > 0
        else { return nil }
        return FrameRate.reduced(Int64(timeScale), 2 * Int64(ticks))
    }
}
