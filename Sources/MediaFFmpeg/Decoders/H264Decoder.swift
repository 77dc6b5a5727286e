public import Logging
public import MediaCore

/// Decodes H.264 access units to raw frames: VideoToolbox's `VTDecompressionSession`, or GStreamer's
/// `avdec_h264`.
///
/// - Input: AVCC samples (4-byte length before each NAL unit), one access unit per sample, whose format
///   carries the SPS and PPS (``/MediaCore/VideoFormat/h264``), as ``H264Encoder`` and the Annex-B reader give them.
///   In-band parameter sets are fine too. When a sample's parameter sets differ from the previous
///   sample's, the new ones are fed to the decoder before it. Samples are read with
///   ``/MediaBitstream/AVCCParser``, as `AnnexBMuxer` and ``ContainerMuxer`` read them: a length past the
///   end throws ``/MediaCore/MediaError/Code/truncated`` with its byte offset, a zero-length NAL unit is
///   skipped and reported to ``logger`` (code `emptyNALUnitsSkipped`).
/// - Output: one raw frame per picture, in presentation order, tightly packed, in the pixel format the
///   stream has (`yuv420p` for 8-bit 4:2:0; `yuv422p`, `yuv444p`, `gray` for other 8-bit streams;
///   `yuv420p10le`, `yuv422p10le`, `yuv444p10le` for High 10 / High 4:2:2 / High 4:4:4 at 10 bits:
///   ``VideoConverter`` brings them to 8 bits); a stream in a format ``/MediaCore/PixelFormat`` has no
///   case for (9 or 12–14 bits, 10-bit grey) throws
///   ``/MediaCore/MediaError/Code/unsupportedFormat``. Each frame has the input's frame rate, and the pixel aspect
///   ratio and chroma location the stream gives (the SPS's VUI; H.264's default chroma location is left).
/// - Zero-copy: where FFmpeg's rows are already tightly packed (every line size a multiple of its
///   alignment: 1280, 1920 wide...), a frame borrows the decoder's picture buffers
///   (``/MediaCore/MediaSample/borrowsMemory``) instead of copying them, as `VTDecompressionSession` hands
///   out its `CVPixelBuffer`s; the buffers go back to the decoder when the last copy of the sample goes,
///   on any thread. Other sizes are packed into buffers that are reused once a consumer lets go.
/// - Output times: strictly increasing presentation times (after a sample flagged
///   ``/MediaCore/MediaSample/Flags/discontinuity`` they start afresh), timed in one of two ways, chosen
///   by the first sample:
///   - When its presentation time is after its decode time, or it has no separate decode time, the
///     input's presentation times are taken as real: each frame has the presentation time and
///     duration of the access unit it came from (FFmpeg's `best_effort_timestamp`).
///   - When it has no presentation time, or one that is not after its decode time, they are not
///     presentation times: a stream that reorders frames presents its first access unit at least the
///     reorder delay after decoding it. They are decode-order placeholders (a raw `.h264` has no
///     times: `AnnexBReader` and ``ContainerDemuxer`` time it in decode order, presentation = decode
///     time, and `ffmpeg -c copy` writes that into an MP4), with which the frames of a stream with
///     B-frames would come out of order. The frames are then timed by decode time, as the ffmpeg CLI
///     times them: each frame gets the decode time of the access unit whose decoding released it (the
///     earliest presentation the decode times allow; for a stream without reordering, its own), and
///     the frames drained at the end follow at their durations. So a raw `.h264` from
///     ``ContainerDemuxer``, whose decode times start the reorder delay before zero, decodes to frames
///     at 0, 1, 2, ... frame durations, as with the ffmpeg CLI.
///   A frame whose presentation time would not be after the previous frame's (out of order after
///   all) switches to timing by decode time for the rest of the stream; where that gives no later time
///   either (the frames drained at the end), the frame follows the previous one at its duration.
/// - Threads (``Threading``): by default one FFmpeg decoder with its frame threads, as the ffmpeg CLI and
///   `avdec_h264` decode. ``Threading/groupsOfPictures(workers:bufferBytes:)`` decodes closed groups of
///   pictures on several threads at once instead, each with a single-threaded decoder: the same frames
///   and times for an undamaged stream (concealment of a damaged one may differ), faster where FFmpeg's
///   frame threads leave cores idle, at the cost of holding up to a group of pictures per worker.
///
/// A sample the decoder rejects throws ``/MediaCore/MediaError/Code/decoderFailure``; the driver (or a
/// ``/MediaCore/CheckedStage``) stamps it with the sample's index. Damage the
/// decoder gets past is not silent either, though it does not stop decoding (as with the ffmpeg CLI
/// without `-xerror`, and VideoToolbox's per-frame status): ``damagedFrameCount`` counts the frames
/// it emitted with errors concealed, and ``missingFrameCount`` the access units that gave no frame.
/// ``finish(into:)`` drains the frames held back for reordering. Backed by FFmpeg's `h264` decoder
/// (`avcodec_send_packet` / `avcodec_receive_frame`).
public final class H264Decoder: MediaStage, DiagnosticReporting {
    /// How the decoder uses the CPUs.
    public let threading: Threading
    private var output: VideoFrameOutput?
    /// The decoder, with frame threads (``Threading/frames``).
    private var serial: H264DecoderCore?
    /// The groups of pictures in flight (``Threading/groupsOfPictures(workers:bufferBytes:)``).
    private var groups: H264GOPDecoding?
    /// The kernel ids of the group-of-pictures workers running or not yet joined (none before the
    /// first sample and after ``finish(into:)``), for tests that check the workers end.
    package var workerThreadIDs: [Int32] { groups?.workerThreadIDs ?? [] }
    private var index: Int64 = 0
    /// Whether ``finish(into:)`` has emitted everything the decoder held back.
    private var drained = false

    /// Access units given to ``process(_:into:)`` so far.
    public var accessUnitCount: Int64 { index }

    /// Frames emitted so far.
    public var frameCount: Int64 { output?.frameCount ?? 0 }

    /// Frames emitted that FFmpeg's decoder marked as damaged (`decode_error_flags`, or
    /// `AV_FRAME_FLAG_CORRUPT`): their picture has errors concealed.
    public var damagedFrameCount: Int64 { output?.damagedFrameCount ?? 0 }

    /// Once ``finish(into:)`` has returned: how many access units gave no frame, because the decoder
    /// could not decode them (damaged or missing references); 0 before (frames held back for
    /// reordering are not missing yet). Counted for frame-coded streams, where
    /// every access unit is one frame; a stream of separately coded fields pairs two into one.
    public var missingFrameCount: Int64 { drained ? max(0, accessUnitCount - frameCount) : 0 }

    /// Where concealment is reported: a warning (code `framesConcealed`, with `stage`, `sampleIndex` of
    /// the access unit whose decoding released the frames and `count` of damaged frames) for each such
    /// access unit, and one (code `framesMissing`, `count`) at the end when access units gave no frame.
    /// `nil` (the default) logs nothing; nothing is logged for a clean stream.
    public var logger: Logger?

    /// A decoder that uses the CPUs as `threading` says; it opens on the first sample.
    public init(threading: Threading = .frames) {
        self.threading = threading
        FFmpeg.quietLogging()
    }

    /// Decodes one access unit; emits the frames that are ready.
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        guard case .video(let input) = sample.format, input.codec == .h264 else {
            throw MediaError.formatMismatch(stage: name, expected: "H.264 video", actual: sample.format)
        }
        defer { index += 1 }  // a sample refused below counts too: it was given
        let scan = try sample.withUnsafeBytes { (raw) throws(MediaError) in
            try H264AccessUnitScan(avcc: raw.assumingMemoryBound(to: UInt8.self))
        }
        let output = try self.output ?? open(first: input, timing: sample.timing)
        defer { reportDamage(output) }
        let unit = output.accept(sample, format: input)
        if let groups {
            try groups.process(unit, scan: scan, output: output, into: emit)
        } else if let serial {
            try serial.send(unit, annexBSize: scan.annexBSize)
            while let slot = try serial.receive() { try output.emit(slot, releasedBy: unit.index, into: emit) }
        }
        if let (warning, offset) = scan.emptyNALUnits {
            MediaDiagnostic(
                .warning, "H.264 access unit \(index): \(warning).",
                metadata: [
                    DiagnosticKey.stage: name, DiagnosticKey.code: "emptyNALUnitsSkipped",
                    DiagnosticKey.sampleIndex: String(index), DiagnosticKey.byteOffset: String(offset)
                ]
            ).log(to: logger)
        }
    }

    /// Drains the decoder: emits every frame it still holds.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        if let output {
            defer { reportDamage(output) }
            if let groups {
                try groups.finish(output: output, into: emit)
            } else if let serial {
                try serial.sendEnd()
                while let slot = try serial.receive() { try output.emit(slot, releasedBy: index - 1, into: emit) }
            }
            output.finish()
        }
        drained = true
        let missing = missingFrameCount
        if missing > 0 {
            MediaDiagnostic(
                .warning,
                "\(missing) of \(accessUnitCount) H.264 access \(missing == 1 ? "unit" : "units") gave no frame.",
                metadata: [
                    DiagnosticKey.stage: name, DiagnosticKey.code: "framesMissing", DiagnosticKey.count: String(missing)
                ]
            ).log(to: logger)
        }
    }

    /// Opens the decoder (or the workers) for a stream whose first sample has `format` and `timing`.
    private func open(first format: VideoFormat, timing: SampleTiming) throws(MediaError) -> VideoFrameOutput {
        switch threading {
        case .frames:
            let output = VideoFrameOutput(first: format, timing: timing)
            serial = try H264DecoderCore(threads: 0, timescale: output.timescale, parameters: format.h264)
            self.output = output
            return output
        case .groupsOfPictures(let workers, let bufferBytes):
            guard workers >= 1, bufferBytes >= 0 else {
                throw MediaError(
                    .invalidArgument,
                    "H264Decoder needs at least one worker and a buffer of 0 bytes or more, not \(workers) and \(bufferBytes)"
                )
            }
            // The longest group whose pictures fit the buffer while `workers + 1` groups are in flight
            // (8-bit 4:2:0 pictures; 1080p when the format does not give a size).
            let width = format.width > 0 ? format.width : 1920
            let height = format.height > 0 ? format.height : 1080
            let length = bufferBytes / max(1, (workers + 1) * width * height * 3 / 2)
            let output = VideoFrameOutput(
                first: format, timing: timing, pendingAccessUnits: (workers + 2) * length, keepsDecodeTicks: true)
            groups = try H264GOPDecoding(
                workers: workers, maximumGroupLength: length, timescale: output.timescale, parameters: format.h264)
            self.output = output
            return output
        }
    }

    /// Logs a warning for each access unit that released damaged frames since the last report.
    private func reportDamage(_ output: VideoFrameOutput) {
        for (accessUnit, count) in output.takeDamageReports() {
            MediaDiagnostic(
                .warning,
                "H.264 access unit \(accessUnit) decoded to \(count) \(count == 1 ? "frame" : "frames") with errors concealed.",
                metadata: [
                    DiagnosticKey.stage: name, DiagnosticKey.code: "framesConcealed",
                    DiagnosticKey.sampleIndex: String(accessUnit), DiagnosticKey.count: String(count)
                ]
            ).log(to: logger)
        }
    }
}

@available(*, unavailable) extension H264Decoder: Sendable {}
