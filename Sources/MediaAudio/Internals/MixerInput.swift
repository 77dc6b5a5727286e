import MediaCore

/// One input of an ``AudioMixer``: its source and stages (a ``/MediaCore/MediaBin``, driven through the
/// library's one loop and guard), the float32 frames read ahead of the mix, and its gain and balance
/// ramps. Lives on the mixer's thread.
final class MixerInput {
    /// Its first frame on the mix's timeline.
    let start: Int64
    let controls: AudioMixer.Controls
    /// Where its contribution is metered, if its controls have a meter.
    var metering: MixerMetering?
    private let source: CheckedSource
    private let stages: MediaBin
    private let sampleRate: Int
    private let channels: Int
    private let rampFrames: Int
    /// Interleaved frames read ahead; `head` is the first not yet mixed.
    private var buffer: [Float] = []
    private var head = 0
    private var hasEnded = false
    private var isRemoved = false
    private var gain: LinearRamp
    private var balance: LinearRamp

    init(_ input: AudioMixer.Payload, controls: AudioMixer.Controls, start: Int64, mixer: AudioMixer) {
        self.start = start
        self.controls = controls
        source = CheckedSource(input.source)
        stages = MediaBin("\(source.name) (mixer input)", stages: input.stages)
        sampleRate = mixer.sampleRate
        channels = mixer.channels
        rampFrames = LinearRamp.frames(mixer.rampDuration, sampleRate: mixer.sampleRate)
        gain = LinearRamp(controls.isMuted ? 0 : controls.gain.value)
        balance = LinearRamp(controls.pan.value)
    }

    /// Frames read ahead and not yet mixed.
    var bufferedFrames: Int { (buffer.count - head) / channels }

    /// Whether it has nothing more to give: ended and mixed out, or removed.
    var isDone: Bool { isRemoved || (hasEnded && bufferedFrames == 0) }

    /// Reads until `frames` frames are ahead of the mix, or the input has ended.
    func fill(_ frames: Int) throws {
        while !hasEnded && bufferedFrames < frames {
            if let sample = try source.next() {
                try stages.process(sample) { try append($0) }
            } else {
                try stages.finish { try append($0) }
                hasEnded = true
            }
        }
    }

    /// Adds `frames` frames (from the head) × the gain and balance into `sums` (interleaved, from frame
    /// `lead` of the buffer being mixed), ramping to the controls' values; consumes them.
    func mix(into sums: inout [Double], from lead: Int, frames: Int) {
        let removing = controls.isRemoved
        gain.retarget(controls.isMuted || removing ? 0 : controls.gain.value, over: rampFrames)
        balance.retarget(controls.pan.value, over: rampFrames)
        let channels = channels
        var index = head
        buffer.withUnsafeBufferPointer { input in
            sums.withUnsafeMutableBufferPointer { output in
                guard let source = input.baseAddress, let target = output.baseAddress else { return }
                if gain.isSteady && balance.isSteady {
                    // The usual case: nothing changing, one factor per channel for the whole buffer.
                    let level = gain.value
                    let pan = balance.value
                    let left = channels == 2 ? level * (pan > 0 ? 1 - pan : 1) : level
                    let right = channels == 2 ? level * (pan < 0 ? 1 + pan : 1) : level
                    let from = source + index
                    let to = target + lead * channels
                    if channels == 2 {
                        for frame in 0..<frames {
                            to[2 &* frame] += left * Double(from[2 &* frame])
                            to[2 &* frame &+ 1] += right * Double(from[2 &* frame &+ 1])
                        }
                    } else {
                        for value in 0..<(frames * channels) { to[value] += level * Double(from[value]) }
                    }
                    index += frames * channels
                    return
                }
                for frame in 0..<frames {
                    let level = gain.next()
                    let base = (lead + frame) * channels
                    if channels == 2 {
                        let pan = balance.next()
                        target[base] += level * (pan > 0 ? 1 - pan : 1) * Double(source[index])
                        target[base + 1] += level * (pan < 0 ? 1 + pan : 1) * Double(source[index + 1])
                    } else {
                        for channel in 0..<channels {
                            target[base + channel] += level * Double(source[index + channel])
                        }
                    }
                    index += channels
                }
            }
        }
        head = index
        if head > 1 << 16 {
            buffer.removeFirst(head)
            head = 0
        }
        if removing && gain.isSteady { isRemoved = true }
    }

    /// Appends what the stages emitted, checked and converted to interleaved float32.
    private func append(_ sample: MediaSample) throws {
        _ = try MixerPCM.append(sample, to: &buffer, sampleRate: sampleRate, channels: channels, input: source.name)
    }
}

/// The PCM an ``AudioMixer`` takes: float32 (interleaved or planar) in the mix's rate and channel count.
enum MixerPCM {
    /// Appends `sample`'s frames (its trims honoured) to `values`, interleaved; the frames appended.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/formatMismatch`` naming `input` for anything but float32
    ///   PCM at `sampleRate` with `channels` channels; ``/MediaCore/MediaError/Code/invalidData`` for
    ///   buffers shorter than the frame count.
    static func append(
        _ sample: MediaSample, to values: inout [Float], sampleRate: Int, channels: Int, input: String
    ) throws -> Int {
        guard case .audio(let audio) = sample.format, let pcm = audio.pcm, pcm.sampleType == .f32,
            audio.sampleRate == sampleRate, audio.channelCount == channels
        else {
            throw MediaError.formatMismatch(
                stage: input,
                expected:
                    "32-bit float PCM at \(sampleRate) Hz with \(count: channels, "channel") (the mix's format: put an AudioConverter in the input's stages)",
                actual: sample.format)
        }
        try sample.validatePCMLayout()
        let first = sample.trimAtStart
        let end = sample.frameCount - sample.trimAtEnd
        guard end > first else { return 0 }
        values.reserveCapacity(values.count + (end - first) * channels)
        if pcm.isInterleaved {
            sample.withUnsafeBytes { raw in
                let bytes = UnsafeRawBufferPointer(rebasing: raw[(first * channels * 4)..<(end * channels * 4)])
                #if _endian(little)
                    if Int(bitPattern: bytes.baseAddress) % MemoryLayout<Float>.alignment == 0 {
                        // The bytes are the values: one copy.
                        bytes.withMemoryRebound(to: Float.self) { values.append(contentsOf: $0) }
                        return
                    }
                #endif
                for index in 0..<((end - first) * channels) { values.append(bytes.float32(at: index)) }
            }
        } else {
            let base = values.count
            values.append(contentsOf: repeatElement(0, count: (end - first) * channels))
            for channel in 0..<channels {
                sample.withUnsafeBytes(plane: channel) { raw in
                    for frame in first..<end {
                        values[base + (frame - first) * channels + channel] = raw.float32(at: frame)
                    }
                }
            }
        }
        return end - first
    }
}

@available(*, unavailable) extension MixerInput: Sendable {}
