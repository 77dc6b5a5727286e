extension MediaSource {
    /// This source ending after exactly `duration`, measured from its first sample: ⌈`duration` ×
    /// sample rate⌉ audio frames, the last buffer cut (PCM) or trimmed (a compressed packet's
    /// ``MediaSample/trimAtEnd``); video frames that start before the end. Live or file.
    ///
    /// ```swift
    /// var recording = try capture.prefix(duration: .seconds(5))   // exactly 220 500 frames at 44.1 kHz
    /// ```
    ///
    /// See ``PrefixSource`` for what is guaranteed. The source is not read past the limit.
    ///
    /// - Throws: ``MediaError/Code/invalidArgument`` naming `duration` when it is negative or not a
    ///   finite time.
    public func prefix(duration: MediaTime) throws(MediaError) -> PrefixSource<Self> {
        try Self.check(duration, named: "duration", of: "prefix(duration:)")
        return PrefixSource(self, limit: .duration(duration))
    }

    /// This source ending after exactly `frames` audio frames (that play: trims are not counted),
    /// the last buffer cut (PCM) or trimmed (a compressed packet's ``MediaSample/trimAtEnd``); for
    /// video, after `frames` pictures. Live or file.
    ///
    /// ```swift
    /// var first = try tone.prefix(frames: 48_000)   // one second at 48 kHz
    /// ```
    ///
    /// See ``PrefixSource`` for what is guaranteed. The source is not read past the limit.
    ///
    /// - Throws: ``MediaError/Code/invalidArgument`` naming `frames` when it is negative.
    public func prefix(frames: Int64) throws(MediaError) -> PrefixSource<Self> {
        guard frames >= 0 else {
            throw MediaError(.invalidArgument, "prefix(frames:) needs zero frames or more, but frames is \(frames)")
        }
        return PrefixSource(self, limit: .frames(frames))
    }

    /// This source without what comes before `time`, measured from its first sample: the audio frames
    /// that start before it (the buffer that straddles it cut, or a compressed packet's
    /// ``MediaSample/trimAtStart`` set), the video frames that start before it. Timestamps stay the
    /// source's own: the first sample handed out starts at the first sample's time plus `time`.
    ///
    /// ```swift
    /// var window = try reader.start(at: .seconds(2)).prefix(duration: .seconds(3))
    /// ```
    ///
    /// Skipped compressed video leaves frames a decoder cannot rebuild without the keyframe before
    /// them: skip raw video, or skip before an encoder. See ``SkippingSource`` for what is guaranteed.
    ///
    /// - Throws: ``MediaError/Code/invalidArgument`` naming `at` when `time` is negative or not a
    ///   finite time.
    public func start(at time: MediaTime) throws(MediaError) -> SkippingSource<Self> {
        try Self.check(time, named: "at", of: "start(at:)")
        return SkippingSource(self, start: time)
    }

    /// `prefix(duration:)` for a source held as `any MediaSource`, whose type a ``PrefixSource``
    /// cannot name: the same wrapper, as an opaque source.
    @_disfavoredOverload
    public func prefix(duration: MediaTime) throws(MediaError) -> some MediaSource {
        let limited: PrefixSource<Self> = try prefix(duration: duration)
        return limited
    }

    /// `prefix(frames:)` for a source held as `any MediaSource`, whose type a ``PrefixSource`` cannot
    /// name: the same wrapper, as an opaque source.
    @_disfavoredOverload
    public func prefix(frames: Int64) throws(MediaError) -> some MediaSource {
        let limited: PrefixSource<Self> = try prefix(frames: frames)
        return limited
    }

    /// `start(at:)` for a source held as `any MediaSource`, whose type a ``SkippingSource`` cannot
    /// name: the same wrapper, as an opaque source.
    @_disfavoredOverload
    public func start(at time: MediaTime) throws(MediaError) -> some MediaSource {
        let skipping: SkippingSource<Self> = try start(at: time)
        return skipping
    }

    /// Throws unless `time` is a finite time of zero or more, naming the argument.
    private static func check(_ time: MediaTime, named argument: String, of method: String) throws(MediaError) {
        guard time.isNumeric, time >= .zero else {
            throw MediaError(
                .invalidArgument, "\(method) needs a finite time of zero or more, but \(argument) is \(time)")
        }
    }
}
