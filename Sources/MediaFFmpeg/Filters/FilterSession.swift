internal import CMediaFFmpeg
import MediaCore

/// A ``FilterGraphStage``'s graph once the input format is known: the graph, the frame samples go in
/// through, the frame filtered frames come out into, and the time bases on both sides.
final class FilterSession {
    private let graph: FilterGraphContext
    /// The format samples go in with (`nil` for a generator graph).
    private let inputFormat: MediaFormat?
    /// The input's time base: 1/rate for audio, 1/timescale for video.
    private let inputTimescale: Int32
    private let input: Frame
    private let output: Frame
    private let stage: String
    /// Where the next output starts when a frame carries no time.
    private var nextOutputTime = MediaTime.invalid
    /// The last input video frame's duration, for output frames the graph gives no rate for.
    private var lastDuration = MediaTime.invalid

    init(description: String, input sample: MediaSample, threadCount: Int, stage: String) throws(MediaError) {
        self.stage = stage
        inputFormat = sample.format
        graph = try FilterGraphContext()
        input = try Frame()
        output = try Frame()
        graph.setThreadCount(threadCount)
        let sourceFilter: String
        let sinkFilter: String
        let arguments: String
        var pixelFormats: [PixelFormat] = []
        switch sample.format {
        case .audio(let audio):
            guard let pcm = audio.pcm, pcm.sampleType != .s24, audio.sampleRate > 0, audio.channelCount > 0 else {
                throw MediaError.formatMismatch(
                    stage: stage, expected: "linear PCM (not packed 24-bit: convert it to s32 first)",
                    actual: sample.format)
            }
            inputTimescale = Int32(clamping: audio.sampleRate)
            sourceFilter = "abuffer"
            sinkFilter = "abuffersink"
            let sampleFormat = String(cString: av_get_sample_fmt_name(pcm.avSampleFormat))
            arguments =
                "time_base=1/\(audio.sampleRate):sample_rate=\(audio.sampleRate):sample_fmt=\(sampleFormat):channel_layout=\(Self.describe(audio.channelLayout))"
        case .video(let video):
            guard let pixels = video.pixelFormat, video.width > 0, video.height > 0 else {
                throw MediaError.formatMismatch(stage: stage, expected: "raw video", actual: sample.format)
            }
            let time = sample.timing.presentationTime
            inputTimescale = time.isNumeric && time.timescale > 0 ? time.timescale : 90_000
            sourceFilter = "buffer"
            sinkFilter = "buffersink"
            let aspect = video.pixelAspectRatio.map { "\($0.horizontalSpacing)/\($0.verticalSpacing)" } ?? "1/1"
            var text =
                "video_size=\(video.width)x\(video.height):pix_fmt=\(pixels.avPixelFormat.rawValue):time_base=1/\(inputTimescale):pixel_aspect=\(aspect)"
            if let rate = video.frameRate, rate.isValid { text += ":frame_rate=\(rate.numerator)/\(rate.denominator)" }
            arguments = text
            pixelFormats = PixelFormat.allCases
        }
        do {
            try graph.build(
                description, sourceFilter: sourceFilter, arguments: arguments, sinkFilter: sinkFilter,
                pixelFormats: pixelFormats)
        } catch {
            throw Self.diagnose(description, failure: error, input: sample.format)
        }
    }

    /// A generator graph (`color=…,drawtext=…`, `testsrc2`, `sine`): no input, one output.
    init(generator description: String, threadCount: Int, stage: String) throws(MediaError) {
        self.stage = stage
        inputFormat = nil
        inputTimescale = 1
        graph = try FilterGraphContext()
        input = try Frame()
        output = try Frame()
        graph.setThreadCount(threadCount)
        // The sink is for what the chain's last filter gives.
        var video = true
        if let last = FilterChainText.filters(of: description).last, let filter = avfilter_get_by_name(last.name),
            avfilter_filter_pad_count(filter, 1) > 0
        {
            video = avfilter_pad_get_type(filter.pointee.outputs, 0) == AVMEDIA_TYPE_VIDEO
        }
        do {
            try graph.build(
                description, sourceFilter: nil, arguments: "", sinkFilter: video ? "buffersink" : "abuffersink",
                pixelFormats: video ? PixelFormat.allCases : [])
        } catch {
            throw Self.diagnose(description, failure: error, input: nil)
        }
    }

    /// Pulls the generator's next frame: `nil` once it has ended.
    func generate() throws -> MediaSample? {
        let code = av_buffersink_get_frame(graph.sink, output.raw)
        if code == mp_averror_eof() { return nil }
        try check(code, calling: "av_buffersink_get_frame", .invalidData)
        defer { av_frame_unref(output.raw) }
        return try outputSample()
    }

    /// Sends `sample` into the graph.
    func push(_ sample: MediaSample) throws {
        guard let inputFormat, Self.sameInput(sample.format, inputFormat) else {
            throw MediaError.formatMismatch(
                stage: stage, expected: "\(inputFormat.map { "\($0)" } ?? "nothing") (the first sample's format)",
                actual: sample.format)
        }
        av_frame_unref(input.raw)
        let time = sample.timing.presentationTime
        var pts = time.isNumeric ? time.converted(to: inputTimescale).value : mp_nopts_value()
        switch sample.format {
        case .audio(let audio):
            try sample.validatePCMLayout()
            let first = max(0, sample.trimAtStart)
            let count = sample.frameCount - first - max(0, sample.trimAtEnd)
            guard count > 0 else { return }
            if pts != mp_nopts_value() { pts += Int64(first) }
            try fillAudio(sample, audio: audio, first: first, count: count)
        case .video(let video):
            try sample.validateVideoLayout(video, index: 0)
            guard let pixels = video.pixelFormat else { return }
            try input.allocateVideo(pixels, width: video.width, height: video.height)
            try input.copyPicture(from: sample, format: video)
            if let aspect = video.pixelAspectRatio {
                input.raw.pointee.sample_aspect_ratio = AVRational(
                    num: Int32(clamping: aspect.horizontalSpacing), den: Int32(clamping: aspect.verticalSpacing))
            }
            lastDuration = sample.timing.duration
        }
        input.raw.pointee.pts = pts
        try check(
            av_buffersrc_add_frame_flags(graph.source, input.raw, 0), calling: "av_buffersrc_add_frame_flags",
            .invalidData)
    }

    /// Tells the graph the input has ended.
    func pushEnd() throws(MediaError) {
        try check(av_buffersrc_add_frame_flags(graph.source, nil, 0), calling: "av_buffersrc_add_frame_flags")
    }

    /// Emits every frame the graph has ready.
    func pull(into emit: (MediaSample) throws -> Void) throws {
        while true {
            let code = av_buffersink_get_frame(graph.sink, output.raw)
            if code == mp_averror_eagain() || code == mp_averror_eof() { return }
            try check(code, calling: "av_buffersink_get_frame", .invalidData)
            defer { av_frame_unref(output.raw) }
            try emit(try outputSample())
        }
    }

    /// The frame in `output` as a sample.
    private func outputSample() throws(MediaError) -> MediaSample {
        let raw = output.raw.pointee
        let base = av_buffersink_get_time_base(graph.sink)
        var time = MediaTime.invalid
        if raw.pts != mp_nopts_value(), base.num > 0, base.den > 0 {
            time = MediaTime(value: raw.pts * Int64(base.num), timescale: base.den)
        } else if nextOutputTime.isNumeric {
            time = nextOutputTime
        }
        if let pcm = PCMFormat(AVSampleFormat(rawValue: raw.format)), raw.sample_rate > 0, raw.nb_samples > 0 {
            let channels = Int(raw.ch_layout.nb_channels)
            let layout: ChannelLayout =
                raw.ch_layout.order == AV_CHANNEL_ORDER_NATIVE && raw.ch_layout.u.mask.nonzeroBitCount == channels
                ? ChannelLayout(mask: raw.ch_layout.u.mask) : .default(channelCount: channels)
            let format = AudioFormat.pcm(pcm, sampleRate: Int(raw.sample_rate), channelLayout: layout)
            let frames = Int(raw.nb_samples)
            let planeCount = pcm.isInterleaved ? 1 : channels
            let bytes = frames * format.bytesPerFrame / planeCount
            let planes = (0..<planeCount).map { plane -> [UInt8] in
                guard let data = mp_frame_data(output.raw, Int32(plane)) else { return [] }
                return Array(UnsafeRawBufferPointer(start: data, count: bytes))
            }
            let duration = MediaTime(value: Int64(frames), timescale: raw.sample_rate)
            nextOutputTime = time.isNumeric ? time + duration : .invalid
            return MediaSample(
                format: .audio(format), planes: planes,
                timing: SampleTiming(presentationTime: time, decodeTime: time, duration: duration),
                frameCount: frames)
        }
        guard let pixels = PixelFormat(AVPixelFormat(rawValue: raw.format)), raw.width > 0, raw.height > 0 else {
            throw MediaError(
                .unsupportedFormat,
                "the filter graph of \(stage) gives \(PixelFormat.name(of: AVPixelFormat(rawValue: raw.format))) frames, which the library has no format for: end the graph with format=yuv420p (or another listed in PixelFormat)"
            )
        }
        let rate = av_buffersink_get_frame_rate(graph.sink)
        let frameRate = rate.num > 0 && rate.den > 0 ? FrameRate.reduced(Int64(rate.num), Int64(rate.den)) : nil
        let aspect = raw.sample_aspect_ratio
        var format = VideoFormat.raw(pixels, width: Int(raw.width), height: Int(raw.height), frameRate: frameRate)
        if aspect.num > 0, aspect.den > 0, aspect.num != aspect.den {
            format.pixelAspectRatio = PixelAspectRatio.reduced(Int64(aspect.num), Int64(aspect.den))
        }
        if case .video(let source)? = inputFormat { format.chromaLocation = source.chromaLocation }
        let duration = frameRate?.frameDuration ?? lastDuration
        nextOutputTime = time.isNumeric && duration.isNumeric ? time + duration : .invalid
        return MediaSample(
            format: .video(format),
            planes: output.packedPlanes(pixels, width: Int(raw.width), height: Int(raw.height)),
            timing: SampleTiming(presentationTime: time, decodeTime: time, duration: duration), frameCount: 1)
    }

    /// Copies frames `first..<first + count` of a PCM sample into `input`'s new buffers.
    private func fillAudio(_ sample: MediaSample, audio: AudioFormat, first: Int, count: Int) throws(MediaError) {
        guard let pcm = audio.pcm else { return }
        input.raw.pointee.format = pcm.avSampleFormat.rawValue
        input.raw.pointee.sample_rate = Int32(clamping: audio.sampleRate)
        input.raw.pointee.nb_samples = Int32(clamping: count)
        var layout = audio.channelLayout.avChannelLayout
        defer { av_channel_layout_uninit(&layout) }
        try check(av_channel_layout_copy(&input.raw.pointee.ch_layout, &layout), calling: "av_channel_layout_copy")
        try check(av_frame_get_buffer(input.raw, 0), calling: "av_frame_get_buffer", .outOfMemory)
        let planeCount = pcm.isInterleaved ? 1 : audio.channelCount
        let bytesPerFrame = audio.bytesPerFrame / planeCount
        for plane in 0..<planeCount {
            guard let destination = mp_frame_data(input.raw, Int32(plane)) else { continue }
            sample.withUnsafeBytes(plane: plane) { source in
                guard let base = source.baseAddress else { return }
                destination.update(
                    from: base.advanced(by: first * bytesPerFrame).assumingMemoryBound(to: UInt8.self),
                    count: count * bytesPerFrame)
            }
        }
    }

    /// Whether a sample of `format` may follow samples of `first` into the same graph.
    private static func sameInput(_ format: MediaFormat, _ first: MediaFormat) -> Bool {
        switch (format, first) {
        case (.audio(let a), .audio(let b)): return a == b
        case (.video(let a), .video(let b)):
            return a.pixelFormat == b.pixelFormat && a.width == b.width && a.height == b.height
        default: return false
        }
    }

    /// FFmpeg's name for a channel layout (`stereo`, `5.1(side)`, `3 channels`).
    private static func describe(_ layout: ChannelLayout) -> String {
        var native = layout.avChannelLayout
        defer { av_channel_layout_uninit(&native) }
        var buffer = [CChar](repeating: 0, count: 128)
        guard av_channel_layout_describe(&native, &buffer, buffer.count) >= 0 else {
            return "\(layout.channelCount)c"
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The error for a graph that would not build: the first filter that refuses its options on its own
    /// (named, with FFmpeg's reason), or the graph as a whole for `input`.
    private static func diagnose(_ description: String, failure: MediaError, input: MediaFormat?) -> MediaError {
        for (index, filter) in FilterChainText.filters(of: description).enumerated() {
            guard let scratch = try? FilterGraphContext(), let definition = avfilter_get_by_name(filter.name) else {
                continue
            }
            let code = scratch.probe(definition, options: filter.options)
            if code < 0 {
                return MediaError(
                    .invalidArgument,
                    "the \(FilterChainText.ordinal(index + 1)) filter of \"\(description)\", \"\(filter.text)\", refuses its options: \(FFmpeg.describe(code))",
                    ffmpegCall: "avfilter_graph_create_filter", ffmpegCode: code)
            }
        }
        return MediaError(
            .invalidArgument,
            "the filter graph \"\(description)\" cannot be built\(input.map { " for \($0)" } ?? ""): \(failure.message)",
            ffmpegCall: failure.ffmpegCall ?? "avfilter_graph_config", ffmpegCode: failure.ffmpegCode)
    }
}

@available(*, unavailable) extension FilterSession: Sendable {}
