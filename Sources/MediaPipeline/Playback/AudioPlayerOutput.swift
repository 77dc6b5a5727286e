public import MediaCore
import Synchronization

/// Where an ``AudioPlayer`` plays: a PulseAudio device, or any ``/MediaCore/MediaSink`` (a file, a
/// collector: written as fast as it takes the audio, for rendering and tests).
public struct AudioPlayerOutput: Sendable {
    /// The rate the output takes, `nil` for the file's.
    let sampleRate: Int?
    /// The channel count the output takes, `nil` for the file's.
    let channels: Int?
    /// Opens the output for 32-bit float interleaved PCM in `format`, on the playback thread.
    let open: @Sendable (AudioFormat) throws -> sending OpenedPlayerOutput

    /// Plays into the sink `make` returns for the player's PCM format (32-bit float interleaved, at
    /// `sampleRate` and `channels`, `nil` for the file's). The position is what was written to it.
    public static func sink(
        sampleRate: Int? = nil, channels: Int? = nil, _ make: @escaping @Sendable (AudioFormat) throws -> any MediaSink
    ) -> AudioPlayerOutput {
        AudioPlayerOutput(sampleRate: sampleRate, channels: channels) { format in
            let clock = WrittenFramesClock()
            return OpenedPlayerOutput(sink: CountingSink(sink: try make(format), clock: clock), clock: clock)
        }
    }

    init(sampleRate: Int?, channels: Int?, open: @escaping @Sendable (AudioFormat) throws -> sending OpenedPlayerOutput)
    {
        self.sampleRate = sampleRate
        self.channels = channels
        self.open = open
    }
}

/// An opened output: its sink, which the playback thread owns, and its clock, which the player keeps.
struct OpenedPlayerOutput {
    var sink: any MediaSink
    let clock: any PlaybackClock
}

/// What has been heard of an output, and its transport (the device's cork and flush), from any thread.
protocol PlaybackClock: Sendable {
    /// Frames heard so far (for a device, from the server's timing; for a sink, written).
    var playedFrames: Int64 { get }
    /// Stops the output's clock where it is (cork).
    func pause()
    /// Starts it again (uncork).
    func resume()
    /// Drops what was written but not heard (a seek); ``playedFrames`` stays where it was.
    func flush()
    /// How often the output ran dry so far (a device's underruns; 0 for a sink).
    var underruns: Int { get }
}

extension PlaybackClock {
    var underruns: Int { 0 }
}

/// A sink's clock: the frames written to it.
final class WrittenFramesClock: PlaybackClock {
    let written = Atomic<Int64>(0)
    var playedFrames: Int64 { written.load(ordering: .acquiring) }
    func pause() {}
    func resume() {}
    func flush() {}
}

/// Counts the frames written into a ``WrittenFramesClock``.
struct CountingSink: MediaSink {
    var sink: any MediaSink
    let clock: WrittenFramesClock
    var name: String { sink.name }

    mutating func write(_ sample: MediaSample) throws {
        try sink.write(sample)
        clock.written.add(Int64(sample.frameCount), ordering: .releasing)
    }

    mutating func finish() throws { try sink.finish() }
}
