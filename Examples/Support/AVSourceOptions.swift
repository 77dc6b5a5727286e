public import ArgumentParser
public import MediaCore
public import MediaFormats

/// The video and audio inputs `av-encoder` and `live-streamer` share: `--pattern [--size WxH --fps N]`
/// or `--video in.y4m`, and `--tone HZ` or `--audio in.wav`, with the sources they make.
public struct AVSourceOptions: ParsableArguments {
    /// `--pattern`: the generated test pattern as the video.
    @Flag(help: "Use the generated test pattern as the video.")
    public var pattern = false

    /// `--size`: the pattern's frame size (``patternSize``), or a capture's when given.
    @Option(
        help: ArgumentHelp(
            "The pattern's frame size (default 1280x720), or a camera's or screen region's.", valueName: "WxH"))
    public var size: VideoSize?

    /// The pattern's size: `--size`, 1280x720 by default.
    public var patternSize: VideoSize { size ?? VideoSize(argument: "1280x720")! }

    /// `--fps`: the pattern's frame rate.
    @Option(help: ArgumentHelp("The pattern's frame rate in frames per second.", valueName: "N"))
    public var fps = 30

    /// `--video`: a .y4m file as the video.
    @Option(help: ArgumentHelp("A .y4m file as the video.", valueName: "in.y4m"))
    public var video: String?

    /// `--tone`: a generated sine as the audio.
    @Option(
        help: ArgumentHelp(
            "Generate a sine tone of HZ hertz as the audio (48 kHz stereo, amplitude 0.5).", valueName: "HZ"))
    public var tone: Double?

    /// `--audio`: a .wav file as the audio.
    @Option(help: ArgumentHelp("A .wav file as the audio.", valueName: "in.wav"))
    public var audio: String?

    /// No inputs.
    public init() {}

    /// Whether a video input is given.
    public var hasVideo: Bool { pattern || video != nil }

    /// Whether `--tone` or `--audio` is given.
    public var hasAudioFileOrTone: Bool { tone != nil || audio != nil }

    /// Refuses two video or two audio inputs, and a tone or frame rate out of range.
    public func validate() throws {
        if pattern && video != nil { throw ValidationError("give either --pattern or --video, not both") }
        if tone != nil && audio != nil { throw ValidationError("give either --tone or --audio, not both") }
        if let tone, !(tone > 0 && tone < 24_000) { throw ValidationError("--tone must be between 0 and 24000 Hz") }
        if !(1...240).contains(fps) { throw ValidationError("--fps must be 1 to 240") }
    }

    /// (Both builders return `sending` values: new sources nobody else holds, which a graph may take to
    /// another thread.)
    ///
    /// The video source (`nil` without a video input): the pattern, `patternLength` long, or the .y4m
    /// cut at `limit`; its frame rate; and whether its pixel format needs a `VideoConverter` to yuv420p
    /// in front of x264 (which takes yuv420p, yuv422p, yuv444p and nv12).
    public func videoSource(
        patternLength: TestPatternGenerator.Length, limit: MediaTime?
    ) throws -> sending (source: any MediaSource, needsConversion: Bool, rate: FrameRate)? {
        if let video {
            let reader = try Y4MReader(path: video)
            let needsConversion =
                reader.format.pixelFormat.map { ![.yuv420p, .yuv422p, .yuv444p, .nv12].contains($0) } ?? false
            let rate = reader.format.frameRate.flatMap { $0.isValid ? $0 : nil } ?? FrameRate(Int32(fps))
            return (limit.map { TimeLimit(reader, limit: $0) } ?? reader, needsConversion, rate)
        }
        guard pattern else { return nil }
        let rate = FrameRate(Int32(fps))
        let generator = try TestPatternGenerator(
            width: patternSize.width, height: patternSize.height, frameRate: rate, length: patternLength)
        return (generator, false, rate)
    }

    /// The audio source (`nil` without `--tone` or `--audio`): the tone (48 kHz stereo 32-bit float,
    /// `toneLength` long, in samples of `framesPerSample` frames) or the .wav cut at `limit`.
    public func audioSource(toneLength: ToneGenerator.Length, limit: MediaTime?, framesPerSample: Int = 1024) throws
        -> sending (any MediaSource)?
    {
        if let audio {
            let reader = try WAVReader(path: audio)
            return limit.map { TimeLimit(reader, limit: $0) } ?? reader
        }
        guard let tone else { return nil }
        return try ToneGenerator(
            .sine(frequency: tone, amplitude: 0.5), sampleRate: 48_000, channels: 2, sampleType: .f32,
            length: toneLength,
            framesPerSample: framesPerSample)
    }
}
