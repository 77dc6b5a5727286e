import Foundation

/// Inputs the tests make with the ffmpeg CLI from its own generators (`-f lavfi -i testsrc2=…`,
/// `sine=…`), made once per machine and build folder instead of once per test: the same 3-second A/V
/// file was made 29 times in one run, and the same 24 frames of `testsrc2` 56 times in each of two forms.
///
/// The first test that asks for a fixture runs ffmpeg into `.build/test-fixtures/`, named by a hash of
/// the arguments and of `ffmpeg -version`, and renames it into place when complete, so test processes
/// running at once never see half a file (two of them may both make it; the last rename wins, with the
/// same content); every test gets a copy of its own at the path it asked for, which it may change.
public enum GeneratedFixture {
    /// Runs `ffmpeg` with `arguments`, whose last is the output path and whose every input is one of
    /// ffmpeg's generators (each `-i` follows `-f lavfi`), or copies what an earlier identical run wrote.
    /// Arguments with another input, or whose output is not a file path, run ffmpeg as
    /// ``ExternalTool/check(_:_:)`` does.
    public static func ffmpeg(_ arguments: [String]) throws {
        guard let output = arguments.last, output.contains("/"), isGeneratorsOnly(arguments.dropLast()) else {
            try ExternalTool.check("ffmpeg", arguments)
            return
        }
        let cached = try cachePath(for: Array(arguments.dropLast()), extension: (output as NSString).pathExtension)
        let manager = FileManager.default
        if !manager.fileExists(atPath: cached) {
            let partial = "\(cached).\(ProcessInfo.processInfo.processIdentifier).\(UInt32.random(in: 0...UInt32.max))"
            // ffmpeg picks the muxer from the name: keep the extension last.
            let partialOutput = partial + "." + (output as NSString).pathExtension
            try ExternalTool.check("ffmpeg", Array(arguments.dropLast()) + [partialOutput])
            if rename(partialOutput, cached) != 0 { try? manager.removeItem(atPath: partialOutput) }
        }
        try? manager.removeItem(atPath: output)
        try manager.copyItem(atPath: cached, toPath: output)
    }

    /// Whether every input of `arguments` is a lavfi generator.
    static func isGeneratorsOnly(_ arguments: ArraySlice<String>) -> Bool {
        let arguments = Array(arguments)
        var inputs = 0
        for (index, argument) in arguments.enumerated() where argument == "-i" {
            inputs += 1
            guard index >= 2, arguments[index - 2] == "-f", arguments[index - 1] == "lavfi" else { return false }
        }
        return inputs > 0
    }

    /// Where the output of `arguments` (without the output path) is kept.
    static func cachePath(for arguments: [String], extension pathExtension: String) throws -> String {
        let directory = TestPaths.packageRoot() + "/.build/test-fixtures"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // FNV-1a, 64 bits, over the version and the arguments, each followed by a zero byte.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for text in [version] + arguments {
            for byte in text.utf8 + [0] {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
        }
        let name = String(hash, radix: 16)
        return "\(directory)/\(name)" + (pathExtension.isEmpty ? "" : ".\(pathExtension)")
    }

    /// The first line of `ffmpeg -version`: a fixture made by another ffmpeg is made again.
    static let version: String = {
        let text = (try? ExternalTool.run("ffmpeg", ["-version"]).output) ?? ""
        return String(text.split(separator: "\n").first ?? "")
    }()
}
