public import Logging
import MediaBitstream
public import MediaCore

/// Writes H.264 access units as an Annex-B elementary stream (`.h264`), as FFmpeg's `h264_mp4toannexb`
/// filter and `-f h264` muxer do.
///
/// Give it AVCC samples (4-byte big-endian length before each NAL unit, one access unit per sample)
/// whose format is `VideoFormat.h264` with the parameter sets (what an H.264 encoder or
/// ``AnnexBReader`` emits):
///
/// ```swift
/// let muxer = CheckedSink(AnnexBMuxer(output: try FileOutput(path: "out.h264"), accessUnitDelimiters: true))
/// for accessUnit in accessUnits { try muxer.write(accessUnit) }
/// try muxer.finish()
/// ```
///
/// The first NAL unit of each access unit, and every SPS and PPS, get the 4-byte start code
/// `00 00 00 01` (H.264 B.1.2: `zero_byte` is required there); the others get `00 00 01`, as x264 and the
/// ffmpeg CLI write them, so that a stream from ``/MediaCore/MediaSample``s of the same encoder comes
/// out byte for byte as `ffmpeg -f h264` writes it. Before the first access unit and before every
/// IDR access unit (one with ``/MediaCore/MediaSample/Flags/keyframe`` or an IDR slice), the SPS and PPS
/// of the sample's format are written, so that a player can start at any IDR picture; an access unit that
/// already carries both an SPS and a PPS in band is written as it is. Parameter sets that change between
/// samples are therefore written at the next IDR access unit. With `accessUnitDelimiters`, every access
/// unit starts with an access unit delimiter unless it already starts with one. Its `primary_pic_type`
/// is the narrowest of Table 7-5 that allows every slice type of the access unit (0 for I slices
/// only, 1 for I and P, 2 for I, P and B, ...; 7 when a slice header cannot be read or there is no
/// slice), as FFmpeg's `h264_metadata=aud=insert` bitstream filter chooses it.
///
/// The samples are read with ``/MediaBitstream/AVCCParser``, the AVCC parser `H264Decoder` and
/// `ContainerMuxer` use too, so that all three accept and refuse the same samples: a zero-length NAL unit
/// is skipped (as FFmpeg's `h264_mp4toannexb` filter skips it) and reported to ``logger``.
///
/// The muxer refuses what it cannot write, and writes nothing of that sample: a format that is not H.264
/// or has no parameter sets (``/MediaCore/MediaError/Code/formatMismatch``), a length prefix that runs
/// past the end of the sample (``/MediaCore/MediaError/Code/truncated``, with the sample index and the
/// prefix's byte offset in the sample), an IDR access unit whose format has no SPS or PPS and that carries none in band
/// (``/MediaCore/MediaError/Code/invalidArgument``). After a refusal, ``finish()`` still flushes and
/// closes the output, whose bytes stay a valid stream.
///
/// The driver keeps the life cycle (no write after a refusal or after ``finish()``, `finish` once) and
/// stamps the errors with the stage's name and the access unit's index; to call the muxer by hand, wrap
/// it in a ``/MediaCore/CheckedSink``, which does the same.
///
/// It writes straight from the sample's bytes to the output and allocates nothing per NAL unit.
///
/// The muxer is a class because it owns its output (a file descriptor, for a ``/MediaCore/FileOutput``):
/// copies of a value would share the output but not the muxer's state, so one copy could finish and
/// close the file while the other kept writing. It is not thread-safe; hand it to one task at a time.
public final class AnnexBMuxer: MediaSink {
    /// The start code before the first NAL unit of an access unit and before SPS and PPS.
    private static let longStartCode: [UInt8] = [0x00, 0x00, 0x00, 0x01]
    /// The start code before the other NAL units.
    private static let shortStartCode: [UInt8] = [0x00, 0x00, 0x01]
    /// The access unit delimiter NAL units, by `primary_pic_type` (0...7): the header (`nal_ref_idc` 0,
    /// type 9), then `primary_pic_type` in 3 bits and the `rbsp_stop_one_bit`.
    private static let accessUnitDelimiters: [[UInt8]] = (0..<8).map { [0x09, UInt8($0 << 5 | 0x10)] }

    /// For each `primary_pic_type` (H.264 Table 7-5), the bit set of the `slice_type` values (0...9) it
    /// allows: 0 is I; 1 is I, P; 2 is I, P, B; 3 is SI; 4 is SI, SP; 5 is I, SI; 6 is I, SI, P, SP; 7 is
    /// all. A `slice_type` and the same type plus 5 are the same kind of slice.
    private static let allowedSliceTypes: [UInt16] = [0x084, 0x0A5, 0x0E7, 0x210, 0x318, 0x294, 0x3BD, 0x3FF]

    private let output: any MediaOutput
    private let writesAccessUnitDelimiters: Bool

    /// Where skipped zero-length NAL units are reported: a warning (code `emptyNALUnitsSkipped`, with
    /// `stage`, `sampleIndex` and the `byteOffset` of the first in the sample) per access unit that had
    /// some. `nil` (the default) logs nothing.
    public var logger: Logger?

    /// Access units written so far.
    public private(set) var accessUnitCount: Int64 = 0

    /// A muxer writing to `output`, with an access unit delimiter before every access unit when
    /// `accessUnitDelimiters` is `true`.
    public init(output: any MediaOutput, accessUnitDelimiters: Bool = false) {
        self.output = output
        self.writesAccessUnitDelimiters = accessUnitDelimiters
    }

    /// The name used in errors.
    public var name: String { "AnnexBMuxer" }

    /// What one pass over a sample's NAL units found.
    private struct Survey {
        var hasIDR = false
        var hasSPS = false
        var hasPPS = false
        var startsWithDelimiter = false
        /// What the parser says about zero-length NAL units it skipped, or `nil` when there were none.
        var emptyNALUnitWarning: String?
        var firstEmptyNALUnitOffset: Int64?
        /// Bit `t` is set when a slice of `slice_type` `t` was seen (all ten when one was unreadable).
        var sliceTypes: UInt16 = 0

        /// The narrowest `primary_pic_type` that allows every slice type seen; 7 without slices.
        var primaryPictureType: Int {
            guard sliceTypes != 0 else { return 7 }
            return AnnexBMuxer.allowedSliceTypes.firstIndex { $0 & sliceTypes == sliceTypes } ?? 7
        }
    }

    /// Writes one access unit.
    ///
    /// - Throws: see the type's documentation; the output's errors.
    public func write(_ sample: MediaSample) throws(MediaError) {
        guard case .video(let format) = sample.format, format.codec == .h264, let parameters = format.h264 else {
            throw MediaError.formatMismatch(
                stage: name, expected: "H.264 video with parameter sets", actual: sample.format)
        }
        var failure: MediaError?
        sample.withUnsafeBytes { raw in
            do throws(MediaError) {
                let survey = try Self.survey(raw, readingSliceTypes: writesAccessUnitDelimiters)
                let needsParameters =
                    (accessUnitCount == 0 || survey.hasIDR || sample.flags.contains(.keyframe))
                    && !(survey.hasSPS && survey.hasPPS)
                if needsParameters
                    && (parameters.sequenceParameterSets.isEmpty || parameters.pictureParameterSets.isEmpty)
                {
                    throw MediaError(
                        .invalidArgument,
                        "access unit needs SPS and PPS before it, but its format has "
                            + "\(parameters.sequenceParameterSets.count) SPS and "
                            + "\(parameters.pictureParameterSets.count) PPS and it carries none in band")
                }
                try writeAccessUnit(raw, survey: survey, parameters: needsParameters ? parameters : nil)
                if let warning = survey.emptyNALUnitWarning {
                    MediaDiagnostic(
                        .warning, "Access unit \(accessUnitCount): \(warning).",
                        metadata: [
                            DiagnosticKey.stage: name, DiagnosticKey.code: "emptyNALUnitsSkipped",
                            DiagnosticKey.sampleIndex: String(accessUnitCount),
                            DiagnosticKey.byteOffset: String(survey.firstEmptyNALUnitOffset ?? 0)
                        ]
                    ).log(to: logger)
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        accessUnitCount += 1
    }

    /// Flushes and closes the output; also after ``write(_:)`` failed.
    ///
    /// - Throws: the output's errors.
    public func finish() throws(MediaError) {
        try output.flush()
        try output.close()
    }

    /// Checks every length prefix of the AVCC sample `raw` (with ``/MediaBitstream/AVCCParser``, the rule
    /// every stage shares) and notes the NAL unit types that matter, the slice types when a delimiter is
    /// to be written, and the zero-length NAL units skipped.
    private static func survey(_ raw: UnsafeRawBufferPointer, readingSliceTypes: Bool) throws(MediaError) -> Survey {
        var survey = Survey()
        var parser = try AVCCParser()
        var isFirst = true
        while let unit = try parser.next(in: raw) {
            let type = raw[unit.range.lowerBound] & 0x1F  // nal_unit_type
            // a slice, or slice data partition A: slice_header() first
            if readingSliceTypes && (type == 1 || type == 2 || type == 5) {
                let nal = UnsafeRawBufferPointer(rebasing: raw[unit.range])
                survey.sliceTypes |= H264SliceHeaderStart.sliceType(of: nal).map { 1 << $0 } ?? 0x3FF
            }
            switch type {
            case 5: survey.hasIDR = true
            case 7: survey.hasSPS = true
            case 8: survey.hasPPS = true
            case 9: if isFirst { survey.startsWithDelimiter = true }
            default: break
            }
            isFirst = false
        }
        survey.emptyNALUnitWarning = parser.emptyNALUnitWarning
        survey.firstEmptyNALUnitOffset = parser.firstEmptyNALUnitOffset
        return survey
    }

    /// Writes the access unit: the delimiter, then the parameter sets (after the sample's own leading
    /// delimiter, if any), then the sample's NAL units.
    private func writeAccessUnit(
        _ raw: UnsafeRawBufferPointer, survey: Survey, parameters: H264Parameters?
    ) throws(MediaError) {
        var isFirst = true
        if writesAccessUnitDelimiters && !survey.startsWithDelimiter {
            try writeNAL(Self.accessUnitDelimiters[survey.primaryPictureType], isFirst: &isFirst)
        }
        var pendingParameters = parameters
        var parser = try AVCCParser()  // the survey has checked every prefix
        while let unit = try parser.next(in: raw) {
            let type = raw[unit.range.lowerBound] & 0x1F
            if let parameters = pendingParameters, type != 9 {
                try writeParameterSets(parameters, isFirst: &isFirst)
                pendingParameters = nil
            }
            try output.write(Self.startCode(type: type, isFirst: &isFirst))
            try output.write(UnsafeRawBufferPointer(rebasing: raw[unit.range]))
        }
        if let parameters = pendingParameters {
            // An empty sample (or delimiters alone): the parameter sets still go out.
            try writeParameterSets(parameters, isFirst: &isFirst)
        }
    }

    private func writeParameterSets(_ parameters: H264Parameters, isFirst: inout Bool) throws(MediaError) {
        for nal in parameters.sequenceParameterSets { try writeNAL(nal, isFirst: &isFirst) }
        for nal in parameters.pictureParameterSets { try writeNAL(nal, isFirst: &isFirst) }
    }

    /// The long start code for the access unit's first NAL unit and for SPS (7) and PPS (8), else the short one.
    private static func startCode(type: UInt8, isFirst: inout Bool) -> [UInt8] {
        defer { isFirst = false }
        return isFirst || type == 7 || type == 8 ? longStartCode : shortStartCode
    }

    /// Writes a start code and `nal`.
    private func writeNAL(_ nal: [UInt8], isFirst: inout Bool) throws(MediaError) {
        try output.write(Self.startCode(type: (nal.first ?? 0) & 0x1F, isFirst: &isFirst))
        try output.write(nal)
    }
}

@available(*, unavailable)
extension AnnexBMuxer: Sendable {}
