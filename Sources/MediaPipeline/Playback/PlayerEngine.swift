#if canImport(Glibc)
    import Glibc
#endif
import MediaAudio
import MediaCore
import MediaFFmpeg

/// The source an ``AudioPlayer``'s graph plays: the file decoded (``AudioFile``), looped gaplessly,
/// converted to the output's rate and channels, time-stretched (``/MediaAudio/TimeStretch``), with
/// volume and pan (``/MediaAudio/GainStage``, ``/MediaAudio/PanStage``) and metered, so that every
/// sample it returns is ready for the device. It runs on the playback thread, which also runs the sink.
///
/// - Pause: ``next()`` waits (50 ms at a time, checking the controls) while paused, and the player
///   pauses the output's clock.
/// - Seek: the file moves (sample-accurately), the converter and stretcher start afresh, and the output
///   drops what it held (``PlaybackClock/flush()``).
/// - Loops: at the end of the file, if loops are left, the file starts again at frame 0 and its PCM
///   follows the last frame without a gap (the stretcher and converter keep running across the seam).
/// - Position: for each sample returned, the file time its first frame plays is recorded in
///   ``PlayerControl`` against the output frame it will be heard at.
struct PlayerEngine: MediaSource {
    private let file: any PlayerPCMSource
    private let control: PlayerControl
    private let clock: any PlaybackClock
    private let fileRate: Int
    private let outputFormat: AudioFormat
    private var converter: AudioConverter?
    private var stretch: TimeStretch
    /// Volume, pan and the meter, in that order: one bin, driven like a pipeline's stages.
    private let effects: MediaBin
    private var ready: [MediaSample] = []
    /// Where each piece of the file entered the stretcher (its input frame, at the output rate) and
    /// the file time it started at.
    private var fed: [(input: Int64, fileTime: Double)] = []
    private var inputFrames: Int64 = 0
    /// Output frames returned (the output clock's frame the next sample will be heard at).
    private var outputFrame: Int64 = 0
    private var fileFrame: Int64 = 0
    private var drained = false
    private var ended = false
    private var startHostTime: MediaTime?
    /// How far the timeline moves at each loop: 0 for ``AudioPlayer`` (its time is the file's, back
    /// to 0 at each loop), the file's duration for ``MediaPlayer`` (whose video is timed on the same
    /// timeline, which only a seek moves back).
    private let loopLength: Double
    /// The timeline time of file time 0 in the current loop.
    private var loopOffset = 0.0

    var name: String { "AudioPlayer" }

    init(
        file: any PlayerPCMSource, startFrame: Int64, control: PlayerControl, clock: any PlaybackClock,
        outputFormat: AudioFormat,
        meter: LevelMeter, startHostTime: MediaTime?, loopLength: Double = 0
    ) throws {
        self.loopLength = loopLength
        self.file = file
        self.control = control
        self.clock = clock
        self.outputFormat = outputFormat
        self.startHostTime = startHostTime
        fileRate = file.fileFormat.sampleRate
        stretch = TimeStretch(rate: control.rate)
        effects = MediaBin(
            "PlayerEffects", stages: [GainStage(volume: control.volume), PanStage(pan: control.pan), meter.stage])
        if startFrame > 0 { try file.seek(toFrame: startFrame) }
        fileFrame = startFrame
        converter = try Self.converter(from: file, to: outputFormat)
        outputFrame = clock.playedFrames
        outputBase = outputFrame
    }

    static func converter(from file: any PlayerPCMSource, to output: AudioFormat) throws -> AudioConverter? {
        let source = file.fileFormat
        guard
            source.sampleRate != output.sampleRate
                || source.channelLayout.channelCount != output.channelLayout.channelCount
        else {
            return nil
        }
        return try AudioConverter(format: .f32, sampleRate: output.sampleRate, channelLayout: output.channelLayout)
    }

    mutating func next() throws -> MediaSample? {
        if let startHostTime {
            MediaClock(anchor: .zero).sleep(until: startHostTime)  // play(atTime:)
            self.startHostTime = nil
        }
        while ready.isEmpty {
            if ended || control.isStopRequested {
                if ended { control.markFedToTheEnd() }
                return nil
            }
            if let seconds = control.takeSeek() { try seek(to: seconds) }
            if control.isPaused {
                control.waitForChange()
                continue
            }
            try pump()
        }
        let sample = ready.removeFirst()
        let time = fileTime(
            atInputFrame: stretch.sourceFrame(forOutputFrame: outputFrame - outputBase) ?? Double(inputFrames))
        control.mark(output: outputFrame, fileTime: time, rate: control.rate.value, outputRate: outputFormat.sampleRate)
        outputFrame += Int64(sample.frameCount)
        return sample
    }

    /// Output frame of the stretcher's first output (the clock's position when it started).
    private var outputBase: Int64 = 0

    /// Reads, converts and processes until output is ready or the end.
    private mutating func pump() throws {
        if drained {
            try stretch.finish { try applyEffects($0) }
            ended = true
            return
        }
        guard var pcm = try file.read() else {
            if control.loops.take() {
                try file.seek(toFrame: 0)
                fileFrame = 0
                loopOffset += loopLength
                return
            }
            if let converter { try converter.finish { try feed($0) } }
            drained = true
            return
        }
        // Where this PCM will enter the stretcher, in its input frames (the converter's few frames of
        // delay aside), and the file time it starts at.
        fed.append((inputFrames, loopOffset + Double(fileFrame) / Double(fileRate)))
        if fed.count > 4096 { fed.removeFirst(2048) }
        pcm.timing = .audio(startFrame: fileFrame, frameCount: pcm.frameCount, sampleRate: fileRate)
        fileFrame += Int64(pcm.frameCount)
        if let converter { try converter.process(pcm) { try feed($0) } } else { try feed(pcm) }
    }

    /// Gives converted PCM to the stretcher.
    private mutating func feed(_ sample: MediaSample) throws {
        inputFrames += Int64(sample.frameCount)
        try stretch.process(sample) { try applyEffects($0) }
    }

    /// Volume, pan and the meter, then ready for the output.
    private mutating func applyEffects(_ sample: MediaSample) throws {
        try effects.process(sample) { ready.append($0) }
    }

    /// The file time of stretcher input frame `frame`.
    private func fileTime(atInputFrame frame: Double) -> Double {
        guard let batch = fed.last(where: { Double($0.input) <= frame }) else { return fed.first?.fileTime ?? 0 }
        return batch.fileTime + (frame - Double(batch.input)) / Double(outputFormat.sampleRate)
    }

    private mutating func seek(to seconds: Double) throws {
        let frame = max(0, Int64((seconds * Double(fileRate)).rounded()))
        try file.seek(toFrame: frame)
        fileFrame = frame
        loopOffset = 0
        converter = try Self.converter(from: file, to: outputFormat)
        stretch = TimeStretch(rate: control.rate)
        ready.removeAll()
        fed.removeAll()
        inputFrames = 0
        drained = false
        ended = false
        clock.flush()
        control.resetMarks()
        outputFrame = clock.playedFrames
        outputBase = outputFrame
    }

    static func mediaError(_ error: any Error) -> MediaError {
        (error as? MediaError) ?? MediaError(.decoderFailure, "playback failed: \(error)")
    }
}
