/// Audio inputs made by sox and the ffmpeg CLI, and sox's levels, for the tests of the stages, the
/// player and the examples.
public enum AudioFixture {
    /// A sox-written 16-bit stereo WAV of `seconds` at 48 kHz in `dir`: 440 Hz left, 660 Hz right, at 0.5.
    /// Returns its path.
    public static func twoTones(_ dir: TemporaryDirectory, seconds: Double = 1, name: String = "in.wav") throws
        -> String
    {
        let path = dir.file(name)
        try ExternalTool.check(
            "sox",
            [
                "-n", "-r", "48000", "-c", "2", "-b", "16", path, "synth", "\(seconds)", "sine", "440", "sine", "660",
                "vol", "0.5"
            ])
        return path
    }

    /// `in.wav` in `dir`, written by the ffmpeg CLI: `seconds` of 48 kHz stereo s16, 440 Hz left and 660 Hz
    /// right at 0.4 with a little noise (the parallel AAC benchmark's signal). Returns its path.
    public static func noisyTwoTones(_ dir: TemporaryDirectory, seconds: Int) throws -> String {
        let path = dir.file("in.wav")
        try GeneratedFixture.ffmpeg(
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                "aevalsrc=0.4*sin(2*PI*440*t)+0.05*(random(0)-0.5)|0.4*sin(2*PI*660*t)+0.05*(random(1)-0.5)"
                    + ":s=48000:d=\(seconds)",
                "-c:a", "pcm_s16le", path
            ])
        return path
    }

    /// sox's "Pk lev dB" and "RMS lev dB" for each channel of the file at `path`.
    public static func soxLevels(_ path: String) throws -> (peak: [Double], rms: [Double]) {
        let text = try ExternalTool.run("sox", [path, "-n", "stats"]).stderr
        func row(_ name: String) -> [Double] {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return [] }
            return line.split(separator: " ").compactMap { Double($0) }.suffix(2).map { $0 }
        }
        return (row("Pk lev dB"), row("RMS lev dB"))
    }
}
