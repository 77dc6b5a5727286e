#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Computes `amplitude * sin(2π f n / rate)` for frame indices `n`, fast and without drift.
///
/// Every 256th frame (an *anchor*, at an absolute index, so that the result does not depend on how
/// the frames are split into samples) the phase is computed from the frame index: the whole-hertz part
/// of `f n / rate` in exact integer arithmetic modulo the rate, the fractional part in `Double`. Between
/// anchors the value advances by rotating `(cos, sin)` through the per-frame angle: four multiplies
/// instead of a `sin` call. The rotation's rounding error stays below 1e-13 over 256 steps and is
/// discarded at the next anchor, so the phase error after an hour (1.7e8 frames at 48 kHz) is below
/// 1e-9 cycles, far under anything audible or visible in 32-bit float.
struct SineOscillator: Sendable, Hashable {
    /// Peak value.
    let amplitude: Double
    /// Frames per second.
    let sampleRate: Int64
    /// The frequency's whole hertz.
    let wholeHertz: Int64
    /// The frequency's fraction of a hertz, in [0, 1).
    let fractionHertz: Double
    /// cos and sin of the per-frame angle 2π f / rate.
    let stepCos: Double
    let stepSin: Double

    /// Frames between anchors.
    static let anchorInterval: Int64 = 256

    /// An oscillator of `frequency` Hz (0 ≤ frequency < rate / 2, checked by the caller) at `sampleRate`.
    init(frequency: Double, amplitude: Double, sampleRate: Int) {
        self.amplitude = amplitude
        self.sampleRate = Int64(sampleRate)
        let whole = frequency.rounded(.down)
        wholeHertz = Int64(whole)
        fractionHertz = frequency - whole
        let step = 2 * Double.pi * frequency / Double(sampleRate)
        stepCos = cos(step)
        stepSin = sin(step)
    }

    /// The phase of frame `n` (n ≥ 0) in cycles, in [0, 1).
    func cycles(at n: Int64) -> Double {
        // wholeHertz < rate / 2 and n % rate < rate ≤ 2^31, so the product fits in Int64 exactly.
        let whole = (wholeHertz * (n % sampleRate)) % sampleRate
        let rate = Double(sampleRate)
        let fraction = fractionHertz * Double(n) / rate
        let total = Double(whole) / rate + (fraction - fraction.rounded(.down))
        return total - total.rounded(.down)
    }

    /// The exact value at frame `n`, with one `sin` call: what the anchors use, and what tests compare with.
    func value(at n: Int64) -> Double {
        amplitude * sin(2 * Double.pi * cycles(at: n))
    }

    /// Calls `store(i, value)` for frames `start + i`, `i` in `0..<count`, in order.
    @inline(__always)
    func render(from start: Int64, count: Int, _ store: (Int, Double) -> Void) {
        var i = 0
        while i < count {
            let n = start + Int64(i)
            let anchor = n - n % Self.anchorInterval
            let angle = 2 * Double.pi * cycles(at: anchor)
            var c = cos(angle)
            var s = sin(angle)
            var k = anchor
            while k < n {  // from the anchor to the first frame wanted (only when a sample starts mid-block)
                (c, s) = (c * stepCos - s * stepSin, s * stepCos + c * stepSin)
                k += 1
            }
            let end = min(count, i + Int(anchor + Self.anchorInterval - n))
            while i < end {
                store(i, amplitude * s)
                (c, s) = (c * stepCos - s * stepSin, s * stepCos + c * stepSin)
                i += 1
            }
        }
    }
}
