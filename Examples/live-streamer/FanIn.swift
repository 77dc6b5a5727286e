import ArgumentParser
import ExampleSupport
import MediaPipeline

/// The controls of what `--overlay-text`, `--overlay-image`, `--pip` and `--mix-input` add, by the name
/// the standard-input commands use (`text`, `image`, `pip`; `main`, `mix`).
struct FanInControls: Sendable {
    var video: [String: VideoCompositor.Controls] = [:]
    var audio: [String: AudioMixer.Controls] = [:]
}

extension LiveStreamer {
    /// Whether the video goes through a compositor.
    var hasVideoFanIn: Bool { overlayText != nil || overlayImage != nil || pip != nil }

    func validateFanIn() throws {
        if hasVideoFanIn && !sources.hasVideo {
            throw ValidationError(
                "--overlay-text, --overlay-image and --pip draw on the video: give --pattern or --video")
        }
        if let pip, pip.hasPrefix("/dev/") {
            throw ValidationError(
                "--pip \(pip): cameras are not supported yet (they come with video capture); give a .y4m or video file")
        }
        if mixInput != nil && !(sources.hasAudioFileOrTone || capture != nil) {
            throw ValidationError("--mix-input mixes into the audio: give --tone, --audio or --capture")
        }
    }

    /// The canvas: the main video's size and rate (`captured`: a camera's or screen's size).
    private func canvas(rate: FrameRate, captured: (width: Int, height: Int)?) throws -> VideoCompositor.Canvas {
        var size = captured ?? (width: sources.patternSize.width, height: sources.patternSize.height)
        if let video = sources.video {
            let format = try Y4MReader(path: video).format
            size = (format.width, format.height)
        }
        return VideoCompositor.Canvas(width: size.width & ~1, height: size.height & ~1, frameRate: rate)
    }

    /// A live compositor of `main` (full canvas), `--pip` (bottom right), `--overlay-image` (top right)
    /// and `--overlay-text` (bottom left), on `clock`.
    func compositor(
        main: sending any MediaSource, rate: FrameRate, captured: (width: Int, height: Int)?, clock: MediaClock,
        limit: MediaTime?, controls: inout FanInControls
    ) throws -> sending VideoCompositor {
        let canvas = try canvas(rate: rate, captured: captured)
        var inputs = [VideoCompositor.Input(source: main, layout: .fullCanvas(canvas))]
        if let pip {
            let input = VideoCompositor.Input(
                source: RealTimeSource(try Self.videoFile(pip), clock: clock), stages: try Self.decoding(pip),
                layout: .inset(on: canvas))
            controls.video["pip"] = input.controls
            inputs.append(input)
        }
        if let overlayImage {
            let picture = try StillImage.load(path: overlayImage)
            let width = picture.format.video?.width ?? 0
            let input = VideoCompositor.Input.still(
                picture, layout: VideoCompositor.Layout(x: canvas.width - width - 16, y: 16, zIndex: 2))
            controls.video["image"] = input.controls
            inputs.append(input)
        }
        if let overlayText {
            let text = VideoCompositor.TextOverlay(.string(overlayText), size: max(12, canvas.height / 18), box: .black)
            let input = try VideoCompositor.Input.text(
                text, on: canvas,
                layout: VideoCompositor.Layout(x: 16, y: canvas.height - text.size * 3 / 2 - 40, zIndex: 3))
            controls.video["text"] = input.controls
            inputs.append(input)
        }
        return try VideoCompositor(
            canvas: canvas, duration: limit, live: VideoCompositor.Live(clock: clock), inputs: inputs)
    }

    /// A live mix of `main` and `--mix-input` (a PulseAudio source, or a .wav file played at its pace).
    func mixer(
        main: sending any MediaSource, with mixInput: String, clock: MediaClock, limit: MediaTime?,
        controls: inout FanInControls
    ) throws -> sending any MediaSource {
        func toMix() throws -> AudioConverter {
            try AudioConverter(format: .f32, sampleRate: 48_000, channelLayout: .default(channelCount: 2))
        }
        let second: any MediaSource
        if mixInput.lowercased().hasSuffix(".wav") {
            second = RealTimeSource(try WAVReader(path: mixInput), clock: clock)
        } else {
            second = try AudioCaptureSource(
                device: mixInput, sampleType: .f32, sampleRate: 48_000, channels: 2, clock: clock)
        }
        let first = AudioMixer.Input(source: main, stages: [try toMix()])
        let mixed = AudioMixer.Input(source: second, stages: [try toMix()])
        controls.audio["main"] = first.controls
        controls.audio["mix"] = mixed.controls
        // A PulseAudio capture's samples arrive about 200 ms after their time: wait up to 500 ms.
        let mixer = try AudioMixer(
            sampleRate: 48_000, channels: 2, framesPerBuffer: 480,
            live: AudioMixer.Live(clock: clock, latency: MediaTime(value: 1, timescale: 2)), inputs: [first, mixed])
        guard let limit else { return mixer }
        return try mixer.prefix(duration: limit)
    }

    /// A video file as a source: a .y4m, or the first video stream of any file libavformat reads.
    static func videoFile(_ path: String) throws -> sending any MediaSource {
        if path.lowercased().hasSuffix(".y4m") { return try Y4MReader(path: path) }
        let demuxer = try ContainerDemuxer(path: path)
        guard let stream = demuxer.firstVideoStream else { throw ValidationError("--pip \(path) has no video stream") }
        return try ContainerDemuxer.streamSource(demuxer, stream: stream)
    }

    /// What decodes `path`'s video: H.264 is decoded, raw video needs nothing.
    static func decoding(_ path: String) throws -> [any MediaStage] {
        if path.lowercased().hasSuffix(".y4m") { return [] }
        let demuxer = try ContainerDemuxer(path: path)
        let format = demuxer.streams.first { $0.isVideo }?.format
        if case .video(let video)? = format, video.codec == .h264 { return [H264Decoder()] }
        return []
    }
}
