import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `av-mixer` mixing two live PulseAudio inputs for 30 s (a private daemon: tones at 440 and 660 Hz played
/// into two null sinks, their monitors mixed at gains 0.5 and 0.25): both tones at their gains (±0.5 dB)
/// in every 100 ms window, no gap; the first input's player killed at 10 s leaves the other going, and
/// its device removed at 15 s makes it leave the mix with a warning while the other goes on to the end.
@Suite(.tags(.realTime), .timeLimit(.minutes(2))) struct AVMixerPulseTests {
    /// The amplitude of the `hertz` component of `values` (mono), by projection on a whole number of cycles.
    static func amplitude(_ values: ArraySlice<Float>, hertz: Double, rate: Double) -> Double {
        var re = 0.0
        var im = 0.0
        for (offset, value) in values.enumerated() {
            let phase = 2 * Double.pi * hertz * Double(offset) / rate
            re += Double(value) * cos(phase)
            im += Double(value) * sin(phase)
        }
        return 2 * (re * re + im * im).squareRoot() / Double(values.count)
    }

    @Test func twoDevicesMixedForThirtySecondsAtTheirGainsWithoutAGap() throws {
        let daemon = try PulseDaemon()
        defer { daemon.stop() }
        let dir = try TemporaryDirectory()
        let module = try daemon.run(
            "pactl", ["load-module", "module-null-sink", "sink_name=b", "rate=48000", "channels=2"]
        ).output.trimmingCharacters(in: .whitespacesAndNewlines)
        for (name, hertz) in [("a", 440), ("b", 660)] {
            try ExternalTool.check(
                "sox",
                [
                    "-n", "-r", "48000", "-c", "2", "-b", "16", dir.file("\(name).wav"), "synth", "45", "sine",
                    "\(hertz)", "vol", "0.5"
                ])
        }
        // Players asking for 500 ms of latency (paplay's default, 2 s, makes the sinks report that much,
        // which their monitors' captures then count in their time stamps; 50 ms underran on a loaded machine,
        // and a player's underrun is a gap in what the device carries, not in the mix). `-v` makes paplay say
        // "Stream underrun." when it happens, which a failure below reports.
        let playerA = try daemon.spawn("paplay", ["-v", "--latency-msec=500", "--device=test", dir.file("a.wav")])
        let playerB = try daemon.spawn("paplay", ["-v", "--latency-msec=500", "--device=b", dir.file("b.wav")])
        defer {
            playerA.kill()
            playerB.kill()
        }
        let mixer = try daemon.spawn(
            TestPaths.executable("av-mixer"),
            [
                "--audio", "pulse:test.monitor,gain=0.5", "--audio", "pulse:b.monitor,gain=0.25", "--duration", "30",
                // A window for the monitors' ~200 ms time stamps and a loaded machine's hiccups.
                "--latency", "1500",
                "--output", dir.file("mix.wav")
            ])
        defer { mixer.kill() }
        let started = Date()
        Thread.sleep(until: started.addingTimeInterval(10))
        playerA.kill()
        Thread.sleep(until: started.addingTimeInterval(15))
        // The first input's device goes away: its capture fails, and it leaves the mix.
        let modules = try daemon.run("pactl", ["list", "short", "modules"]).output
        let first = try #require(
            modules.split(separator: "\n").first { $0.contains("module-null-sink") && $0.contains("sink_name=test") })
        try daemon.run("pactl", ["unload-module", String(first.split(separator: "\t")[0])])
        #expect(mixer.wait(timeout: 40), "av-mixer did not end")
        let result = mixer.result
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("test.monitor") && result.stderr.contains("left the mix"), "\(result.stderr)")
        _ = module

        let values = RawAudio.floats(
            try ExternalTool.check(
                "sox", [dir.file("mix.wav"), "-t", "raw", "-e", "floating-point", "-b", "32", "-c", "1", "-"]
            ).stdout)
        let rate = 48_000.0
        #expect(abs(Double(values.count) / rate - 30) < 0.01, "\(Double(values.count) / rate) s")
        let window = 4_800
        // The mix's time zero is when av-mixer started; the devices deliver from when they are open (well
        // within 3 s, in a debug build on a loaded machine). 660 Hz at 0.5 × 0.25 = 0.125 in every window from 3 s to 29.9 s: no
        // gap, at its gain.
        var worst660 = (error: 0.0, at: 0.0)
        for start in stride(from: 144_000, to: values.count - window, by: window) {
            let level = Self.amplitude(values[start..<(start + window)], hertz: 660, rate: rate)
            let error = abs(20 * log10(level / 0.125))
            if error > worst660.error { worst660 = (error, Double(start) / rate) }
        }
        let underruns = playerB.result.stderr.components(separatedBy: "Stream underrun").count - 1
        #expect(
            worst660.error <= 0.5,
            """
            the 660 Hz input strayed \(worst660.error) dB from its gain at \(worst660.at) s; its player reported \
            \(underruns) underruns; av-mixer said: \(result.stderr)
            """
        )
        // 440 Hz at 0.5 × 0.5 = 0.25 while its player played (2 s to 7.5 s of the mix: the mix's time zero is
        // when av-mixer started, up to 2.5 s after the test's clock on a loaded machine), then gone.
        var worst440 = (error: 0.0, at: 0.0)
        for start in stride(from: 96_000, to: 360_000, by: window) {
            let level = Self.amplitude(values[start..<(start + window)], hertz: 440, rate: rate)
            let error = abs(20 * log10(level / 0.25))
            if error > worst440.error { worst440 = (error, Double(start) / rate) }
        }
        #expect(
            worst440.error <= 0.5,
            "the 440 Hz input strayed \(worst440.error) dB from its gain at \(worst440.at) s; av-mixer said: \(result.stderr)"
        )
        let sound = values.firstIndex { $0 != 0 } ?? values.count
        #expect(Double(sound) / rate < 3, "the mix is silent for its first \(Double(sound) / rate) s: \(result.stderr)")
        let after = Self.amplitude(values[(13 * 48_000)..<(14 * 48_000)], hertz: 440, rate: rate)
        #expect(after < 0.001, "440 Hz still in the mix after its player was killed: \(after)")
    }
}
