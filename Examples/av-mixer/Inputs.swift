import ArgumentParser
import ExampleSupport
import Foundation
import MediaPipeline

/// Makes the mixer's and the compositor's inputs from `--audio` and `--video` specs, and keeps their
/// controls for the summary's counts.
final class InputBuilder {
    let sampleRate: Int
    let channels: Int
    let canvas: CanvasSpec
    /// The clock of a live mix (a `pulse:` input), which every input is paced and stamped on.
    let live: MediaClock?
    let duration: MediaTime?
    private var audioControls: [(String, AudioMixer.Controls)] = []
    private var videoControls: [(String, VideoCompositor.Controls)] = []

    init(sampleRate: Int, channels: Int, canvas: CanvasSpec, live: MediaClock?, duration: MediaTime?) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.canvas = canvas
        self.live = live
        self.duration = duration
    }

    private var toneLength: ToneGenerator.Length { duration.map { .duration($0) } ?? .unlimited }

    /// The mixer input for `spec`: its source converted to the mix's float32 format.
    func audioInput(_ spec: InputSpec) throws -> AudioMixer.Input {
        var source: any MediaSource
        var stages: [any MediaStage] = []
        switch spec.origin {
        case .tone(let hertz):
            source = try ToneGenerator(
                .sine(frequency: hertz, amplitude: 0.5), sampleRate: sampleRate, channels: channels, length: toneLength)
        case .pulse(let device):
            source = try AudioCaptureSource(
                device: device.isEmpty ? nil : device, sampleRate: sampleRate, channels: channels,
                clock: live ?? MediaClock())
        case .file(let path) where path.lowercased().hasSuffix(".wav"):
            source = try WAVReader(path: path)
        case .file(let path):
            let (file, format) = try Self.firstStream(path, video: false)
            source = file
            if format?.audio?.pcm == nil { stages.append(AudioDecoder()) }
        case .pattern, .image:
            throw ValidationError("--audio \(spec.text) is not audio")
        }
        if let live, !isDevice(spec) { source = RealTimeSource(source, clock: live) }
        let offset = MediaTime(value: Int64(((spec.options["offset"] ?? 0) * 1000).rounded()), timescale: 1000)
        // Converted on the way in to the mix's float32 (libsoxr, as sox resamples).
        let input = try AudioMixer.Input(
            converting: source, stages: stages, sampleRate: sampleRate, channels: channels, offset: offset,
            gain: spec.options["gain"] ?? 1, pan: spec.options["pan"] ?? 0)
        audioControls.append((spec.text, input.controls))
        return input
    }

    /// The compositor input for `spec`, placed as its options say.
    func videoInput(_ spec: InputSpec) throws -> VideoCompositor.Input {
        var layout = VideoCompositor.Layout(
            x: spec.int("x") ?? 0, y: spec.int("y") ?? 0, width: spec.int("w"), height: spec.int("h"),
            zIndex: spec.int("z") ?? 0, alpha: spec.options["alpha"] ?? 1)
        let offset = MediaTime(value: Int64(((spec.options["offset"] ?? 0) * 1000).rounded()), timescale: 1000)
        var source: any MediaSource
        var stages: [any MediaStage] = []
        switch spec.origin {
        case .image(let path):
            let input = VideoCompositor.Input.still(try StillImage.load(path: path), layout: layout)
            videoControls.append((spec.text, input.controls))
            return input
        case .pattern:
            if layout.width == nil && layout.height == nil {
                (layout.width, layout.height) = (canvas.width, canvas.height)
            }
            source = try TestPatternGenerator(
                width: canvas.width, height: canvas.height, frameRate: FrameRate(Int32(canvas.fps)),
                length: duration.map { .duration($0) } ?? .frames(Int64.max / 2))
        case .file(let path) where path.lowercased().hasSuffix(".y4m"):
            source = try Y4MReader(path: path)
        case .file(let path):
            let (file, format) = try Self.firstStream(path, video: true)
            source = file
            if case .video(let video)? = format, video.codec == .h264 { stages.append(H264Decoder()) }
        case .tone, .pulse:
            throw ValidationError("--video \(spec.text) is not video")
        }
        if let live { source = RealTimeSource(source, clock: live) }
        let input = VideoCompositor.Input(source: source, stages: stages, layout: layout, offset: offset)
        videoControls.append((spec.text, input.controls))
        return input
    }

    /// The first video (or audio) stream of the file at `path` as a source, and its format.
    private static func firstStream(_ path: String, video: Bool) throws -> sending (any MediaSource, MediaFormat?) {
        let demuxer = try ContainerDemuxer(path: path)
        guard let stream = video ? demuxer.firstVideoStream : demuxer.firstAudioStream else {
            throw ValidationError(
                "--\(video ? "video" : "audio") \(path): the file has no \(video ? "video" : "audio") stream")
        }
        let format = demuxer.streams.first { $0.index == stream }?.format
        return (try ContainerDemuxer.streamSource(demuxer, stream: stream), format)
    }

    private func isDevice(_ spec: InputSpec) -> Bool {
        if case .pulse = spec.origin { return true }
        return false
    }

    /// One line per input that had late, dropped or repeated frames.
    func counts() -> [String] {
        var lines: [String] = []
        for (name, controls) in audioControls where controls.lateFrames > 0 || controls.droppedFrames > 0 {
            lines.append(
                "audio \(name): \(count: controls.lateFrames, "frame") late (mixed as silence), \(count: controls.droppedFrames, "frame") dropped"
            )
        }
        for (name, controls) in videoControls where controls.repeatedFrames > 0 || controls.droppedFrames > 0 {
            lines.append(
                "video \(name): \(count: controls.repeatedFrames, "frame") repeated, \(count: controls.droppedFrames, "frame") dropped to the canvas's rate"
            )
        }
        return lines
    }
}

@available(*, unavailable) extension InputBuilder: Sendable {}
