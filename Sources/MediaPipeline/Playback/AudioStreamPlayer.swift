public import MediaCore
public import MediaFormats

/// Plays audio while its bytes arrive: what an AudioQueue fed by `AudioFileStream` does, as one object.
/// Push the bytes of an MP3, AAC (ADTS), CAF, WAVE, AIFF or NeXT file as a download delivers them;
/// playback starts as soon as the first packets are there and waits (the device runs dry, nothing is
/// skipped) when the bytes come slower than the audio plays.
///
/// ```swift
/// let player = try AudioStreamPlayer(output: .device(nil), fileTypeHint: .mp3)
/// try player.play()                                   // starts when the first packets arrive
/// for try await chunk in download { player.push(chunk) }
/// player.finish()                                     // the rest plays, then `.finished`
/// for await event in player.events { if case .finished = event { break } }
/// ```
///
/// - The bytes go to ``stream`` (an ``/MediaFormats/AudioByteStream``, which keeps them all), are read
///   by an ``/MediaFormats/AudioFileReader`` that hands out packets four at a time as they arrive, decoded
///   by ``AudioFile``, and played as ``AudioPlayer`` plays: converted to the output's rate and
///   channels, with ``volume`` and ``pan``, on a playback thread of its own.
/// - ``currentTime`` is the stream time being heard. Setting it seeks, sample-accurately: back at
///   once (every byte is kept), forward once the bytes there have arrived (until then the output
///   waits, as it does for late bytes).
/// - ``play()`` returns at once; the stream's header is read on the playback thread. An error (bytes
///   that are no audio file, a codec the decoder lacks, the output) is reported as
///   ``AudioPlayerEvent/decodeError(_:)`` then ``AudioPlayerEvent/finished(successfully:)``, as for
///   an error while playing.
/// - ``stop()`` ends the stream (``/MediaFormats/AudioByteStream/cancel()``) and the playback: a player
///   plays one stream.
///
/// The methods may be called from any thread; ``onEvent`` is called on the playback thread.
public final class AudioStreamPlayer: Sendable {
    /// Where the pushed bytes go; ``push(_:)`` and ``finish()`` are its ``/MediaFormats/AudioByteStream/push(_:)``
    /// and ``/MediaFormats/AudioByteStream/finish()``.
    public let stream: AudioByteStream
    /// The stream's type when known (from a MIME type or a file name); `nil` sniffs it.
    public let fileTypeHint: AudioFileType?
    /// Every event, in order. One stream per player: iterate it once.
    public var events: AsyncStream<AudioPlayerEvent> { transport.events }

    private let transport: PlayerTransport

    /// A player of the bytes to come into `output`.
    ///
    /// - Parameters:
    ///   - output: where to play, as for ``AudioPlayer``.
    ///   - fileTypeHint: the stream's type, when known.
    ///   - name: what errors call the stream (a URL).
    /// - Throws: the meter's errors.
    public init(output: AudioPlayerOutput, fileTypeHint: AudioFileType? = nil, name: String = "pushed audio stream")
        throws(MediaError)
    {
        stream = AudioByteStream(name: name)
        self.fileTypeHint = fileTypeHint
        transport = try PlayerTransport(output: output)
    }

    /// Appends bytes of the file as they arrive.
    public func push(_ bytes: some Collection<UInt8>) { stream.push(bytes) }

    /// Says the file has ended: what has arrived plays to its end, then ``AudioPlayerEvent/finished(successfully:)``.
    public func finish() { stream.finish() }

    /// Whether audio is playing (not paused, stopped or ended); `true` while ``play()`` waits for the
    /// first packets.
    public var isPlaying: Bool { transport.isPlaying }

    /// Linear gain, 0…1 (clamped); changes ramp over 20 ms.
    public var volume: Float {
        get { Float(transport.volume.value) }
        set { transport.volume.value = Double(newValue) }
    }

    /// The stream time being heard, in seconds. Setting it moves there, sample-accurately (see the type).
    public var currentTime: Double {
        get { transport.currentTime }
        set { transport.seek(to: max(0, newValue)) }
    }

    /// −1 (left) … 1 (right), as ``AudioPlayer/pan``.
    public var pan: Float {
        get { Float(transport.pan.value) }
        set { transport.pan.value = Double(newValue) }
    }

    /// Called with every event too, on the playback thread; capture the player `[weak player]` in it.
    public var onEvent: (@Sendable (AudioPlayerEvent) -> Void)? {
        get { transport.onEvent }
        set { transport.onEvent = newValue }
    }

    /// Starts playing from ``currentTime`` as soon as the stream's first packets have arrived (returning
    /// at once), or resumes after ``pause()``.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/outOfMemory`` when the playback thread cannot start.
    public func play() throws(MediaError) {
        if transport.resume() || !transport.beginStarting() { return }
        try StageThread.detach { [self] in
            do throws(MediaError) {
                let file = try AudioFile(stream: stream, fileTypeHint: fileTypeHint, outputFormat: PCMFormat(.f32))
                try transport.start(file, at: nil)
            } catch {
                var named = error  // the reader's errors speak of bytes: say which stream
                if !named.message.hasPrefix(stream.name) { named.message = "\(stream.name): \(named.message)" }
                transport.failedToStart(named)
            }
        }
    }

    /// Pauses: the output's clock stops where it is; ``play()`` resumes from there.
    public func pause() { transport.pause() }

    /// Ends the stream and the playback (see the type); ``AudioPlayerEvent/finished(successfully:)`` follows.
    public func stop() { transport.stop { stream.cancel() } }
}
