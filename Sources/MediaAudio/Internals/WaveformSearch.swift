#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a segment best continues a waveform: the search step of ``WSOLAEngine``.
enum WaveformSearch {
    /// The start in `low ... high` (indices into `signal`) whose `length` samples best match the
    /// `length` samples at `natural`, by normalised cross-correlation `Σ a·b / √(Σ b² + ε)`: first
    /// every `stride`-th lag, using every `stride`-th sample, starting from `preferred` (kept on ties,
    /// so silence does not move the segment); then each lag within `stride − 1` of the best, using every
    /// sample. The caller guarantees `natural + length` and `high + length` are within `signal`.
    static func bestStart(
        in signal: UnsafeBufferPointer<Float>,
        natural: Int,
        low: Int,
        high: Int,
        preferred: Int,
        length: Int,
        stride: Int
    ) -> Int {
        var best = min(max(preferred, low), high)
        var bestScore = score(signal, natural: natural, candidate: best, length: length, stride: stride)
        var lag = low
        while lag <= high {
            let s = score(signal, natural: natural, candidate: lag, length: length, stride: stride)
            if s > bestScore {
                best = lag
                bestScore = s
            }
            lag += stride
        }
        let coarse = best
        bestScore = score(signal, natural: natural, candidate: coarse, length: length, stride: 1)
        for lag in max(low, coarse - stride + 1)...min(high, coarse + stride - 1) where lag != coarse {
            let s = score(signal, natural: natural, candidate: lag, length: length, stride: 1)
            if s > bestScore {
                best = lag
                bestScore = s
            }
        }
        return best
    }

    @inline(__always)
    private static func score(
        _ signal: UnsafeBufferPointer<Float>, natural: Int, candidate: Int, length: Int, stride: Int
    ) -> Double {
        var dot = 0.0
        var energy = 0.0
        var i = 0
        while i < length {
            let b = Double(signal[candidate + i])
            dot += Double(signal[natural + i]) * b
            energy += b * b
            i += stride
        }
        return dot / (energy + 1e-12).squareRoot()
    }

    /// The periodic Hann window of `length` points: `0.5 − 0.5 cos(2πn / length)`, whose halves sum
    /// to one (`w[n] + w[n + length/2] = 1`).
    static func hann(_ length: Int) -> [Float] {
        (0..<length).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(length))) }
    }
}
