import Foundation
import MediaTestSupport

/// What judges the playback stages' output: sox's `stats` and `stat -freq`, ffmpeg's `atempo`, and a
/// radix-2 FFT of our own.
enum PlaybackJudges {
    /// `sox -n stats` of raw float32 `values`: each row (`Pk lev dB`, `RMS lev dB`, ...) with its
    /// columns (for several channels: overall, then one per channel). `-inf` reads as −∞.
    static func soxStats(_ values: [Float], channels: Int, in dir: TemporaryDirectory) throws -> [String: [Double]] {
        let path = dir.file("stats-\(UUID().uuidString).raw")
        try RawFloats.write(values, to: path)
        let result = try ExternalTool.check("sox", soxRaw(channels) + [path, "-n", "stats"])
        var rows: [String: [Double]] = [:]
        let columns = channels == 1 ? 1 : channels + 1
        for line in result.stderr.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count > columns else { continue }
            let numbers = words.suffix(columns).map { $0 == "-inf" ? -Double.infinity : Double($0) ?? .nan }
            rows[words.dropLast(columns).joined(separator: " ")] = numbers
        }
        return rows
    }

    /// The frequency of the strongest component between `low` and `high` Hz by `sox -n stat -freq`
    /// (4096-point spectra, 11.7 Hz bins at 48 kHz), summed over the file and refined by fitting a
    /// parabola to the log power of the peak bin and its neighbours.
    static func soxPeakFrequency(_ values: [Float], low: Double, high: Double, in dir: TemporaryDirectory) throws
        -> Double
    {
        let path = dir.file("freq-\(UUID().uuidString).raw")
        try RawFloats.write(values, to: path)
        let result = try ExternalTool.check("sox", soxRaw(1) + [path, "-n", "stat", "-freq"])
        var power: [Double: Double] = [:]
        for line in result.stderr.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count == 2, let f = Double(words[0]), let p = Double(words[1]) else { continue }
            power[f, default: 0] += p
        }
        let bins = power.keys.sorted()
        return interpolatedPeak(
            bins.map { power[$0] ?? 0 }, binWidth: bins.count > 1 ? bins[1] - bins[0] : 1, low: low, high: high)
    }

    /// `values` (mono or interleaved) through `ffmpeg -af atempo=<rate>`.
    static func atempo(_ values: [Float], channels: Int, rate: Double, in dir: TemporaryDirectory) throws -> [Float] {
        let input = dir.file("atempo-in.raw")
        let output = dir.file("atempo-out.raw")
        try RawFloats.write(values, to: input)
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "f32le", "-ar", String(PlaybackSignals.rate), "-ac", String(channels), "-i",
                input,
                "-af", "atempo=\(rate)", "-f", "f32le", output
            ])
        return try RawFloats.read(output)
    }

    /// The frequency (Hz) of the strongest component of mono `values` between `low` and `high`: our
    /// own radix-2 FFT of the middle (up to 2^16 samples, Hann-windowed), the peak bin refined by a
    /// parabola through the log magnitudes around it.
    static func peakFrequency(_ values: [Float], low: Double, high: Double) -> Double {
        var n = 1
        while n * 2 <= min(values.count, 1 << 16) { n *= 2 }
        let offset = (values.count - n) / 2
        var re: [Double] = (0..<n).map { (i: Int) -> Double in
            let window: Double = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))
            return Double(values[offset + i]) * window
        }
        var im = [Double](repeating: 0, count: n)
        fft(&re, &im)
        let magnitudes: [Double] = (0...n / 2).map { (i: Int) -> Double in re[i] * re[i] + im[i] * im[i] }
        return interpolatedPeak(magnitudes, binWidth: Double(PlaybackSignals.rate) / Double(n), low: low, high: high)
    }

    private static func interpolatedPeak(_ power: [Double], binWidth: Double, low: Double, high: Double) -> Double {
        let first = max(1, Int(low / binWidth))
        let last = min(power.count - 2, Int(high / binWidth) + 1)
        guard first <= last else { return 0 }
        let k = (first...last).max { power[$0] < power[$1] } ?? first
        let (a, b, c) = (log(power[k - 1] + 1e-30), log(power[k] + 1e-30), log(power[k + 1] + 1e-30))
        let denominator = a - 2 * b + c
        let shift = denominator == 0 ? 0 : 0.5 * (a - c) / denominator
        return (Double(k) + shift) * binWidth
    }

    /// In-place iterative radix-2 FFT (`re.count` a power of two).
    static func fft(_ re: inout [Double], _ im: inout [Double]) {
        let n = re.count
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        var length = 2
        while length <= n {
            let angle = -2 * Double.pi / Double(length)
            for start in stride(from: 0, to: n, by: length) {
                for k in 0..<length / 2 {
                    let (wr, wi) = (cos(angle * Double(k)), sin(angle * Double(k)))
                    let (i, j) = (start + k, start + k + length / 2)
                    let (xr, xi) = (re[j] * wr - im[j] * wi, re[j] * wi + im[j] * wr)
                    (re[j], im[j]) = (re[i] - xr, im[i] - xi)
                    (re[i], im[i]) = (re[i] + xr, im[i] + xi)
                }
            }
            length *= 2
        }
    }

    private static func soxRaw(_ channels: Int) -> [String] {
        ["-t", "raw", "-e", "floating-point", "-b", "32", "-c", String(channels), "-r", String(PlaybackSignals.rate)]
    }
}
