/// The input a ``WSOLAEngine`` still needs: frames `base ..< end` of the stream, interleaved, with
/// their channel average (what the waveform search compares), in buffers that grow only when a
/// larger input buffer arrives and are otherwise reused.
struct StretchInput {
    let channels: Int
    /// Interleaved values; frame `base + i` is at `i × channels`.
    private(set) var samples: [Float]
    /// The average of the channels; frame `base + i` is at `i`.
    private(set) var mono: [Float]
    /// The stream position of the first frame held.
    private(set) var base: Int64 = 0
    /// How many frames are held.
    private(set) var stored = 0

    /// Room for `capacity` frames.
    init(channels: Int, capacity: Int) {
        self.channels = channels
        samples = Array(repeating: 0, count: capacity * channels)
        mono = Array(repeating: 0, count: capacity)
    }

    /// The stream position after the last frame held.
    var end: Int64 { base + Int64(stored) }

    /// The buffer index of stream position `position` (which the caller knows is held).
    func index(_ position: Int64) -> Int { Int(position - base) }

    /// Appends `frames` frames whose value `(frame, channel)` is `value(frame, channel)`.
    mutating func append(frames: Int, value: (Int, Int) -> Float) {
        reserve(frames)
        let c = channels
        let first = stored
        let scale = 1 / Float(c)
        samples.withUnsafeMutableBufferPointer { s in
            mono.withUnsafeMutableBufferPointer { m in
                for frame in 0..<frames {
                    var sum: Float = 0
                    for channel in 0..<c {
                        let v = value(frame, channel)
                        s[(first + frame) * c + channel] = v
                        sum += v
                    }
                    m[first + frame] = sum * scale
                }
            }
        }
        stored += frames
    }

    /// Forgets the frames before stream position `position` (moving the rest to the front).
    mutating func drop(before position: Int64) {
        let drop = Int(min(max(0, position - base), Int64(stored)))
        guard drop > 0 else { return }
        let c = channels
        let remaining = stored - drop
        samples.withUnsafeMutableBufferPointer { s in
            for i in 0..<remaining * c { s[i] = s[i + drop * c] }
        }
        mono.withUnsafeMutableBufferPointer { m in
            for i in 0..<remaining { m[i] = m[i + drop] }
        }
        base += Int64(drop)
        stored = remaining
    }

    /// Holds nothing, and the next frame appended is stream position `position`.
    mutating func removeAll(continuingAt position: Int64) {
        base = position
        stored = 0
    }

    private mutating func reserve(_ frames: Int) {
        let needed = stored + frames
        guard needed * channels > samples.count else { return }
        samples.append(contentsOf: repeatElement(0, count: needed * channels * 2 - samples.count))
        mono.append(contentsOf: repeatElement(0, count: needed * 2 - mono.count))
    }
}
