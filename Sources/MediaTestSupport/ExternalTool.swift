public import Foundation

/// Runs the command-line tools that judge our output (ffprobe, ffmpeg, faad, gst-discoverer-1.0,
/// sndfile-info, sox) and captures what they print.
public enum ExternalTool {
    /// What a finished process left behind.
    public struct Result: Sendable {
        /// The exit status.
        public var status: Int32
        /// Standard output.
        public var stdout: Data
        /// Standard error, as text.
        public var stderr: String
        /// Standard output as UTF-8 text.
        public var output: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs `tool` (looked up on `PATH`, or a path) with `arguments` and waits for it.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String], stdin: Data? = nil) throws -> Result {
        let process = Process()
        if tool.contains("/") {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [tool] + arguments
        }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            DispatchQueue.global().async {
                input.fileHandleForWriting.write(stdin)
                try? input.fileHandleForWriting.close()
            }
        }
        // Read both pipes concurrently so that neither fills up and blocks the child.
        let errData = LockedBox(Data())
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData.value = readToEnd(err.fileHandleForReading.fileDescriptor)
            group.leave()
        }
        let outData = readToEnd(out.fileHandleForReading.fileDescriptor)
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData.value, as: UTF8.self))
    }

    /// Everything readable from `fd` until end of file. A `read(2)` loop that retries on `EINTR`:
    /// Foundation's `readDataToEndOfFile` traps when a signal interrupts it.
    static func readToEnd(_ fd: Int32) -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                data.append(contentsOf: chunk[..<n])
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return data
            }
        }
    }

    /// Runs `tool` and throws ``Failure`` unless it exits 0.
    @discardableResult
    public static func check(_ tool: String, _ arguments: [String], stdin: Data? = nil) throws -> Result {
        let result = try run(tool, arguments, stdin: stdin)
        guard result.status == 0 else {
            throw Failure(
                description:
                    "\(tool) \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr.suffix(2000))"
            )
        }
        return result
    }

    /// `sndfile-info`'s closing summary of `path`, field by field (`Sample Rate`, `Frames`, `Channels`,
    /// `Format` as libsndfile's hexadecimal format code, e.g. `0x00010002` for 16-bit WAV); throws
    /// unless sndfile-info exits 0, and is empty when it prints no summary (a file it cannot open).
    public static func sndfileSummary(_ path: String) throws -> [String: String] {
        let text = try check("sndfile-info", [path]).output
        let parts = text.components(separatedBy: "----------------------------------------")
        guard parts.count > 1, let summary = parts.last else { return [:] }
        var fields: [String: String] = [:]
        for line in summary.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces)
            fields[key] = fields[key] ?? line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// A tool exited with a non-zero status.
    public struct Failure: Error, CustomStringConvertible {
        /// The command and what it printed on standard error.
        public var description: String
    }

    /// `ffprobe -v error -of json <arguments> <path>` parsed as JSON.
    public static func ffprobeJSON(_ path: String, _ arguments: [String]) throws -> [String: Any] {
        let result = try check("ffprobe", ["-v", "error", "-of", "json"] + arguments + [path])
        guard let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
            throw Failure(description: "ffprobe printed no JSON object for \(path)")
        }
        return object
    }

    /// The first stream of `ffprobe -show_streams -count_packets`, as a dictionary of strings and numbers.
    public static func probeFirstStream(_ path: String) throws -> [String: Any] {
        let json = try ffprobeJSON(path, ["-count_packets", "-show_streams"])
        guard let streams = json["streams"] as? [[String: Any]], let first = streams.first else {
            throw Failure(description: "ffprobe found no stream in \(path)")
        }
        return first
    }

    /// Decodes `path` with ffmpeg (`-xerror`) to raw samples of `format` (`f32le`, `s16le`, ...),
    /// optionally forcing channel count and rate.
    public static func decode(
        _ path: String, format: String = "f32le", channels: Int? = nil, sampleRate: Int? = nil, extra: [String] = []
    ) throws -> Data {
        var args = ["-v", "error", "-xerror"] + extra + ["-i", path]
        if let channels { args += ["-ac", String(channels)] }
        if let sampleRate { args += ["-ar", String(sampleRate)] }
        args += ["-f", format, "-"]
        return try check("ffmpeg", args).stdout
    }
}

/// A mutable value guarded by a lock, for passing results between threads in test helpers. The value
/// is `Sendable`, since what is read out of the box leaves the lock.
///
/// Test code uses this rather than `Synchronization.Mutex`: on Linux, `Mutex` hands a contended lock
/// over inside the kernel (a priority-inheritance futex, in the uninstrumented `libswiftSynchronization`),
/// which ThreadSanitizer cannot see, so `make sanitize-thread` reports the accesses it guards as races.
/// `NSLock` is a `pthread_mutex_t`, whose lock and unlock ThreadSanitizer intercepts.
public final class LockedBox<Value: Sendable>: @unchecked Sendable {
    // Every access to `_value` goes through `lock`, so concurrent reads and writes are serialised; and
    // `Value: Sendable`, so a value read out may cross threads (the compiler checks that).
    private let lock = NSLock()
    private var _value: Value
    /// A box holding `value`.
    public init(_ value: Value) { _value = value }
    /// The value, read or written under the lock.
    public var value: Value {
        get { lock.lock(); defer { lock.unlock() }; return _value }
        set { lock.lock(); defer { lock.unlock() }; _value = newValue }
    }
    /// Runs `body` on the value under the lock, as `Mutex.withLock` does.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&_value)
    }
}

/// A fresh temporary directory for one test, removed when the value is released.
public final class TemporaryDirectory {
    /// The directory's path.
    public let path: String

    /// Creates a new empty directory under the system's temporary directory.
    public init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("mediapipeline-tests")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let dir = base.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        path = dir.path
    }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Reading raw little-endian sample data that tools print.
public enum RawAudio {
    /// The frequency of a steady tone in one channel of interleaved `samples`, from its zero
    /// crossings: a judge of pitch that needs no FFT (exact to a crossing per window: ±1 Hz over 0.5 s).
    public static func zeroCrossingFrequency(_ samples: [Float], channels: Int = 1, channel: Int = 0, sampleRate: Int)
        -> Double
    {
        var crossings = 0, frames = 0
        var previous: Float?
        for i in stride(from: channel, to: samples.count, by: channels) {
            if let previous, (previous < 0) != (samples[i] < 0) { crossings += 1 }
            previous = samples[i]
            frames += 1
        }
        return frames > 1 ? Double(crossings) / 2 / (Double(frames) / Double(sampleRate)) : 0
    }

    /// Interprets `data` as little-endian 32-bit floats.
    public static func floats(_ data: Data) -> [Float] {
        data.withUnsafeBytes { raw in
            (0..<raw.count / 4).map {
                Float(bitPattern: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self).littleEndian)
            }
        }
    }

    /// Interprets `data` as little-endian 16-bit integers.
    public static func int16s(_ data: Data) -> [Int16] {
        data.withUnsafeBytes { raw in
            (0..<raw.count / 2).map {
                Int16(bitPattern: raw.loadUnaligned(fromByteOffset: $0 * 2, as: UInt16.self).littleEndian)
            }
        }
    }

    /// The frequency (Hz) of the strongest bin of a real DFT of `samples` (mono), evaluated between
    /// `low` and `high` Hz in 1 Hz steps with the Goertzel algorithm, and that peak's RMS level.
    public static func spectralPeak(_ samples: [Float], sampleRate: Int, low: Int = 20, high: Int = 20_000) -> (
        frequency: Int, amplitude: Double
    ) {
        let n = samples.count
        var best = (frequency: 0, amplitude: 0.0)
        let step = max(1, (high - low) / 2000)
        for f in stride(from: low, through: min(high, sampleRate / 2), by: step) {
            let w = 2 * Double.pi * Double(f) / Double(sampleRate)
            let coeff = 2 * cos(w)
            var s1 = 0.0
            var s2 = 0.0
            for x in samples {
                let s0 = Double(x) + coeff * s1 - s2
                s2 = s1
                s1 = s0
            }
            let power = s1 * s1 + s2 * s2 - coeff * s1 * s2
            let amplitude = 2 * sqrt(max(0, power)) / Double(n)
            if amplitude > best.amplitude { best = (f, amplitude) }
        }
        return best
    }

    /// The root-mean-square level of `samples`.
    public static func rms(_ samples: [Float]) -> Double {
        guard !samples.isEmpty else { return 0 }
        return sqrt(samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count))
    }
}

/// Where the package's files are, for tests that need fixtures or the built example executables.
public enum TestPaths {
    /// The package root (the directory holding Package.swift), found from this source file's path.
    public static func packageRoot(file: StaticString = #filePath) -> String {
        var url = URL(fileURLWithPath: "\(file)")
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url.path
            }
        }
        return FileManager.default.currentDirectoryPath
    }

    /// The directory holding the test bundle, where SwiftPM also puts the example executables.
    public static var buildProductsDirectory: String {
        let exe =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().path
    }

    /// The path of the built example `name` (e.g. `aac-encoder`).
    public static func executable(_ name: String) -> String { buildProductsDirectory + "/" + name }

    /// The path of a file in `Tests/MediaFormatsTests/Fixtures/`.
    public static func fixture(_ name: String, file: StaticString = #filePath) -> String {
        packageRoot(file: file) + "/Tests/MediaFormatsTests/Fixtures/" + name
    }
}
