extension MediaSample {
    /// A sample of interleaved PCM made from typed values, `channels` values per frame: no `[UInt8]` on
    /// the caller's side.
    ///
    /// ```swift
    /// let format = AudioFormat.pcm(.f32, sampleRate: 48_000, channels: 2)
    /// let sample = try MediaSample(pcm: [Float](repeating: 0.25, count: 600), format: format)  // 300 frames
    /// ```
    ///
    /// The timing starts at `startFrame` at a timescale of the sample rate
    /// (``SampleTiming/audio(startFrame:frameCount:sampleRate:)``).
    ///
    /// - Throws: ``MediaError/Code/formatMismatch`` when `format` is not interleaved PCM of `Value`'s
    ///   sample type (``PCMSampleValue``: `Float` for f32, `Int16` for s16, …);
    ///   ``MediaError/Code/invalidArgument`` when the value count is not a whole number of frames.
    public init<Value: PCMSampleValue>(
        pcm values: [Value], format: AudioFormat, startFrame: Int64 = 0
    ) throws(MediaError) {
        try Self.check(format, holds: Value.self, interleaved: true)
        let channels = format.channelCount
        guard channels > 0, values.count % channels == 0 else {
            throw MediaError(
                .invalidArgument,
                "\(count: values.count, "PCM value") is not a whole number of frames of \(count: channels, "channel")")
        }
        let frames = values.count / channels
        self.init(
            format: .audio(format), data: values.withUnsafeBytes { Array($0) },
            timing: .audio(startFrame: startFrame, frameCount: frames, sampleRate: format.sampleRate),
            frameCount: frames)
    }

    /// A sample of planar PCM made from typed values, one array per channel.
    ///
    /// ```swift
    /// let stereo = AudioFormat.pcm(.f32Planar, sampleRate: 48_000, channels: 2)
    /// let planar = try MediaSample(pcmPlanes: [left, right], format: stereo)
    /// ```
    ///
    /// - Throws: ``MediaError/Code/formatMismatch`` when `format` is not planar PCM of `Value`'s sample
    ///   type; ``MediaError/Code/invalidArgument`` when there is not one plane per channel or the planes
    ///   differ in length.
    public init<Value: PCMSampleValue>(
        pcmPlanes planes: [[Value]], format: AudioFormat, startFrame: Int64 = 0
    ) throws(MediaError) {
        try Self.check(format, holds: Value.self, interleaved: false)
        guard planes.count == format.channelCount else {
            throw MediaError(
                .invalidArgument,
                "\(count: planes.count, "plane") given for \(count: format.channelCount, "channel") of planar PCM")
        }
        let frames = planes.first?.count ?? 0
        guard planes.allSatisfy({ $0.count == frames }) else {
            throw MediaError(.invalidArgument, "planar PCM planes differ in length: \(planes.map(\.count))")
        }
        self.init(
            format: .audio(format), planes: planes.map { plane in plane.withUnsafeBytes { Array($0) } },
            timing: .audio(startFrame: startFrame, frameCount: frames, sampleRate: format.sampleRate),
            frameCount: frames)
    }

    /// Calls `body` with the values of plane `plane` (the only one for interleaved PCM: all channels,
    /// frame by frame; one channel for planar PCM) as `Value`, without copying them.
    ///
    /// ```swift
    /// let peak = try sample.withPCM(as: Float.self) { values in values.map(abs).max() ?? 0 }
    /// ```
    ///
    /// - Throws: ``MediaError/Code/formatMismatch`` when the sample is not PCM of `Value`'s sample type
    ///   (an `Int16` sample read as `Float`, an AAC packet); ``MediaError/Code/invalidArgument`` for a
    ///   plane the sample does not have; ``MediaError/Code/invalidData`` for a plane whose byte count is
    ///   not a whole number of values; and whatever `body` throws.
    public func withPCM<Value: PCMSampleValue, Result>(
        as type: Value.Type, plane: Int = 0, _ body: (UnsafeBufferPointer<Value>) throws -> Result
    ) throws -> Result {
        try checkPCMPlane(plane, holds: Value.self)
        return try storage.bytes.withUnsafeBytes(plane) { raw in
            try raw.withMemoryRebound(to: Value.self, body)
        }
    }

    /// Calls `body` with the values of plane `plane` as `Value` to change them in place (copying the
    /// storage first if it is shared). Throws as ``withPCM(as:plane:_:)``.
    ///
    /// ```swift
    /// var quieter = sample
    /// try quieter.withMutablePCM(as: Float.self) { values in
    ///     for index in values.indices { values[index] *= 0.5 }  // -6 dB
    /// }
    /// ```
    public mutating func withMutablePCM<Value: PCMSampleValue, Result>(
        as type: Value.Type, plane: Int = 0, _ body: (UnsafeMutableBufferPointer<Value>) throws -> Result
    ) throws -> Result {
        try checkPCMPlane(plane, holds: Value.self)
        makeUnique()
        return try storage.bytes.withUnsafeMutableBytes(plane) { raw in
            try raw.withMemoryRebound(to: Value.self, body)
        }
    }

    /// The values of plane `plane` as an array of `Value` (one copy). Throws as ``withPCM(as:plane:_:)``.
    ///
    /// ```swift
    /// let values: [Float] = try middle.pcm(as: Float.self)  // interleaved: L R L R …
    /// let rightChannel: [Float] = try planar.pcm(as: Float.self, plane: 1)
    /// ```
    public func pcm<Value: PCMSampleValue>(as type: Value.Type, plane: Int = 0) throws(MediaError) -> [Value] {
        try checkPCMPlane(plane, holds: Value.self)
        return storage.bytes.withUnsafeBytes(plane) { raw in
            raw.withMemoryRebound(to: Value.self) { Array($0) }
        }
    }

    /// Frames `range` of this PCM sample as a sample of their own (a copy of those bytes, in every
    /// plane), timed from this sample's presentation time plus `range.lowerBound` frames.
    ///
    /// ```swift
    /// let middle = try sample.pcmFrames(100..<200)  // 100 frames, pts = sample's pts + 100 frames
    /// ```
    ///
    /// Interleaved and planar, any ``PCMSampleType`` (24-bit too). Trims are kept where they overlap
    /// the range; the discontinuity flag stays only on a slice that starts at frame 0.
    ///
    /// - Throws: ``MediaError/Code/formatMismatch`` for a sample that is not PCM audio;
    ///   ``MediaError/Code/invalidArgument`` for a range outside `0...frameCount`;
    ///   ``MediaError/Code/invalidData`` when the buffers hold less than the frame count says
    ///   (``validatePCMLayout()``).
    public func pcmFrames(_ range: Range<Int>) throws(MediaError) -> MediaSample {
        guard case .audio(let audio) = format, audio.pcm != nil else {
            throw MediaError.formatMismatch(stage: "MediaSample.pcmFrames", expected: "PCM audio", actual: format)
        }
        guard range.lowerBound >= 0, range.upperBound <= frameCount else {
            throw MediaError(
                .invalidArgument, "frames \(range) are outside the \(count: frameCount, "frame") of the sample")
        }
        try validatePCMLayout()
        let width = audio.bytesPerFrame
        let bytes = range.lowerBound * width..<range.upperBound * width
        let planes = (0..<storage.bytes.planeCount).map { storage.bytes.copy($0, bytes) }
        let scale = Int32(clamping: audio.sampleRate)
        let offset = MediaTime(value: Int64(range.lowerBound), timescale: scale)
        var timing = self.timing
        timing.presentationTime = timing.presentationTime + offset
        if timing.decodeTime.isValid { timing.decodeTime = timing.decodeTime + offset }
        timing.duration = MediaTime(value: Int64(range.count), timescale: scale)
        let validEnd = frameCount - trimAtEnd
        let trimStart = min(range.count, max(0, trimAtStart - range.lowerBound))
        let trimEnd = min(range.count - trimStart, max(0, range.upperBound - max(validEnd, range.lowerBound)))
        var flags = self.flags
        if range.lowerBound > 0 { flags.remove(.discontinuity) }
        return MediaSample(
            format: format, planes: planes, timing: timing, frameCount: range.count, flags: flags,
            trimAtStart: trimStart, trimAtEnd: trimEnd)
    }

    /// Throws unless `format` is PCM of `Value`'s sample type with the interleaving given.
    static func check<Value: PCMSampleValue>(
        _ format: AudioFormat, holds type: Value.Type, interleaved: Bool
    ) throws(MediaError) {
        let expected = PCMFormat(Value.pcmSampleType, interleaved: interleaved)
        guard format.pcm == expected else {
            throw MediaError(
                .formatMismatch,
                "\(Value.self) values make \(expected) PCM but the format given is \(format.codec)")
        }
        try checkHostByteOrder()
    }

    /// Throws unless this sample is PCM of `Value`'s sample type with a plane `plane` holding whole values.
    func checkPCMPlane<Value: PCMSampleValue>(_ plane: Int, holds type: Value.Type) throws(MediaError) {
        guard case .audio(let audio) = format, let pcm = audio.pcm else {
            throw MediaError(.formatMismatch, "the sample holds \(format), not PCM to read as \(Value.self)")
        }
        guard pcm.sampleType == Value.pcmSampleType else {
            throw MediaError(
                .formatMismatch,
                "the sample holds \(pcm.sampleType) PCM, which cannot be read as \(Value.self) "
                    + "(\(Value.self) is \(Value.pcmSampleType))")
        }
        guard (0..<storage.bytes.planeCount).contains(plane) else {
            throw MediaError(.invalidArgument, "the sample has no plane \(plane) (it has \(storage.bytes.planeCount))")
        }
        let size = storage.bytes.count(plane)
        guard size % MemoryLayout<Value>.stride == 0 else {
            throw MediaError(
                .invalidData,
                "PCM plane \(plane) of \(count: size, "byte") is not a whole number of \(pcm.sampleType) values")
        }
        try Self.checkHostByteOrder()
    }

    /// PCM in a sample is little-endian; typed access is direct only on a little-endian machine.
    static func checkHostByteOrder() throws(MediaError) {
        #if _endian(big)
            throw MediaError(.unsupportedFormat, "typed PCM access needs a little-endian machine")
        #endif
    }
}
