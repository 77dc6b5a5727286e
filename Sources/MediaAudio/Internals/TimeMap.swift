/// Which input frame each output frame of a ``TimeStretch`` plays: the last ``capacity`` stretches of
/// constant rate, kept in a ring preallocated once (appending never allocates).
///
/// A segment says: output frames `outputStart ..< outputStart + frames` play input from `inputStart`
/// on, advancing `rate` input frames per output frame. Positions are frames from the start of the
/// stream (input frame 0 is the first frame given to the stage).
struct TimeMap {
    struct Segment {
        var outputStart: Int64
        var inputStart: Double
        var rate: Double
        var frames: Int64
    }

    /// How many segments are kept: a rate change or a re-alignment starts a new one.
    static let capacity = 64
    private var ring: [Segment]
    private var newest = -1
    private var count = 0

    init() {
        ring = Array(repeating: Segment(outputStart: 0, inputStart: 0, rate: 1, frames: 0), count: Self.capacity)
    }

    /// Records that output frames `outputStart ..< outputStart + frames` play input from `inputStart` at
    /// `rate`; extends the newest segment when this continues it.
    mutating func append(outputStart: Int64, inputStart: Double, rate: Double, frames: Int) {
        guard frames > 0 else { return }
        if count > 0 {
            let last = ring[newest]
            let continuesOutput = last.outputStart + last.frames == outputStart
            let expectedInput = last.inputStart + Double(last.frames) * last.rate
            if continuesOutput && last.rate == rate && abs(expectedInput - inputStart) < 1e-6 {
                ring[newest].frames += Int64(frames)
                return
            }
        }
        newest = (newest + 1) % Self.capacity
        ring[newest] = Segment(outputStart: outputStart, inputStart: inputStart, rate: rate, frames: Int64(frames))
        count = min(count + 1, Self.capacity)
    }

    /// Forgets the mapping of output frames from `end` on (output cut at the end of the stream).
    mutating func truncate(atOutputFrame end: Int64) {
        while count > 0 {
            let segment = ring[newest]
            if segment.outputStart + segment.frames <= end { return }
            if segment.outputStart < end {
                ring[newest].frames = end - segment.outputStart
                return
            }
            newest = (newest - 1 + Self.capacity) % Self.capacity
            count -= 1
        }
    }

    /// The input position output frame `frame` plays; the end of the newest segment maps to the input
    /// position after it. `nil` before the oldest kept segment or after the newest.
    func inputPosition(forOutputFrame frame: Int64) -> Double? {
        var index = newest
        for _ in 0..<count {
            let segment = ring[index]
            let offset = frame - segment.outputStart
            if offset >= 0 && (offset < segment.frames || (index == newest && offset == segment.frames)) {
                return segment.inputStart + Double(offset) * segment.rate
            }
            index = (index - 1 + Self.capacity) % Self.capacity
        }
        return nil
    }
}
