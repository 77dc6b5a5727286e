internal import CMediaFFmpeg
import MediaCore

/// Owns a `SwrContext` configured from one PCM format to another, with the output buffers it
/// converts into. Converts sample format, rate and channel layout in one pass.
final class Resampler {
    let input: AudioFormat
    let output: AudioFormat
    private var context: OpaquePointer?
    private let inputFFmpeg: PCMFormat
    private let outputFFmpeg: PCMFormat
    private var scratch: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
    private var scratchFrames = 0

    /// A resampler from `input` to `output`, both linear PCM, resampling with `engine`.
    init(from input: AudioFormat, to output: AudioFormat, engine: AudioConverter.ResamplerEngine = .swr)
        throws(MediaError)
    {
        guard let inPCM = input.pcm, let outPCM = output.pcm else {
            throw MediaError(.formatMismatch, "the resampler converts linear PCM only, not \(input) to \(output)")
        }
        self.input = input
        self.output = output
        inputFFmpeg = inPCM.ffmpegCompatible
        outputFFmpeg = outPCM.ffmpegCompatible
        scratch = .allocate(capacity: max(8, output.planeCount))
        scratch.initialize(repeating: nil, count: max(8, output.planeCount))
        FFmpeg.didAllocate()

        var inLayout = input.channelLayout.avChannelLayout
        var outLayout = output.channelLayout.avChannelLayout
        defer {
            av_channel_layout_uninit(&inLayout)
            av_channel_layout_uninit(&outLayout)
        }
        var swr: OpaquePointer?
        try check(
            swr_alloc_set_opts2(
                &swr, &outLayout, outputFFmpeg.avSampleFormat, Int32(output.sampleRate),
                &inLayout, inputFFmpeg.avSampleFormat, Int32(input.sampleRate), 0, nil),
            calling: "swr_alloc_set_opts2")
        context = swr
        if engine == .soxr {
            try check(
                av_opt_set_int(UnsafeMutableRawPointer(swr), "resampler", Int64(SWR_ENGINE_SOXR.rawValue), 0),
                calling: "av_opt_set_int(resampler=soxr)")
        }
        try check(swr_init(swr), calling: "swr_init")
    }

    deinit {
        swr_free(&context)
        for plane in 0..<max(8, output.planeCount) { scratch[plane]?.deallocate() }
        scratch.deinitialize(count: max(8, output.planeCount))
        scratch.deallocate()
        FFmpeg.didFree()
    }

    /// An upper bound on the frames the next conversion of `inputFrames` frames can give.
    func maximumOutput(for inputFrames: Int) -> Int {
        Int(swr_get_out_samples(context, Int32(clamping: inputFrames)))
    }

    /// Converts `frameCount` frames of `planes` (in the input format; nil drains the resampler's delay)
    /// into the scratch buffers, and returns the frames produced.
    private func convert(_ planes: [[UInt8]]?, frameCount: Int) throws(MediaError) -> Int {
        let capacity = max(maximumOutput(for: frameCount), 0) + 32
        reserveScratch(frames: capacity)
        let produced: Int32
        if let planes {
            produced = withPlanePointers(planes) { pointers in
                swr_convert(context, scratch, Int32(capacity), pointers, Int32(frameCount))
            }
        } else {
            produced = swr_convert(context, scratch, Int32(capacity), nil, 0)
        }
        try check(produced, calling: "swr_convert")
        return Int(produced)
    }

    /// Converts `frameCount` frames of `planes` and calls `body` with the output planes in place (valid
    /// only during the call) and the frame count, without copying them into arrays.
    func convertInPlace<R>(
        planes: [[UInt8]],
        frameCount: Int,
        _ body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, Int) throws(MediaError) -> R
    ) throws(MediaError) -> R {
        let frames = try convert(planes, frameCount: frameCount)
        return try body(scratch, frames)
    }

    /// Converts one sample's worth of PCM (already in FFmpeg-compatible layout) and returns the output
    /// planes, in the output format (24-bit packed again if asked for), and their frame count.
    func convert(planes: [[UInt8]], frameCount: Int) throws(MediaError) -> (planes: [[UInt8]], frames: Int) {
        let frames = try convert(planes, frameCount: frameCount)
        return (collect(frames), frames)
    }

    /// Drains what the resampler holds back (its filter delay) and returns it.
    func drain() throws(MediaError) -> (planes: [[UInt8]], frames: Int) {
        var all = [[UInt8]](repeating: [], count: output.planeCount)
        var total = 0
        while true {
            let frames = try convert(nil, frameCount: 0)
            if frames <= 0 { break }
            let chunk = collect(frames)
            for plane in all.indices { all[plane].append(contentsOf: chunk[plane]) }
            total += frames
        }
        return (all, total)
    }

    /// The input sample's planes in the layout FFmpeg takes (packed 24-bit widened to 32).
    func ffmpegPlanes(of sample: MediaSample) -> [[UInt8]] {
        guard input.pcm?.sampleType == .s24 else { return sample.planes }
        return sample.planes.map { plane in plane.withUnsafeBytes { PCM24.expand($0) } }
    }

    /// Appends plane `plane` of the last conversion's `frames` output frames to `bytes`, in the output
    /// format (24-bit packed again if asked for): no allocation when `bytes` has the capacity.
    func appendOutput(plane: Int, frames: Int, to bytes: inout [UInt8]) {
        let bytesPerFrame = output.channelCount * outputFFmpeg.sampleType.bytesPerSample / output.planeCount
        let raw = UnsafeRawBufferPointer(start: scratch[plane], count: frames * bytesPerFrame)
        if output.pcm?.sampleType == .s24 {
            bytes.append(contentsOf: PCM24.pack(raw))
        } else {
            bytes.append(contentsOf: raw)
        }
    }

    private func collect(_ frames: Int) -> [[UInt8]] {
        let bytesPerFrame = output.channelCount * outputFFmpeg.sampleType.bytesPerSample / output.planeCount
        return (0..<output.planeCount).map { plane in
            let raw = UnsafeRawBufferPointer(start: scratch[plane], count: frames * bytesPerFrame)
            return output.pcm?.sampleType == .s24 ? PCM24.pack(raw) : Array(raw)
        }
    }

    private func reserveScratch(frames: Int) {
        guard frames > scratchFrames else { return }
        let bytesPerFrame = output.channelCount * outputFFmpeg.sampleType.bytesPerSample / output.planeCount
        for plane in 0..<output.planeCount {
            scratch[plane]?.deallocate()
            scratch[plane] = .allocate(capacity: frames * bytesPerFrame)
        }
        scratchFrames = frames
    }
}

@available(*, unavailable) extension Resampler: Sendable {}
