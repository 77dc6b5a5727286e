import Foundation
import Testing

/// The code examples in these doc comments are the text of a slice of a program in `Snippets/`, which
/// `swift build` compiles: so an example that stops compiling fails the build, and one edited apart from
/// its snippet fails here. (The examples in the DocC articles are `@Snippet` directives, compiled the same way.)
@Suite(.timeLimit(.minutes(2))) struct DocExampleSnippetTests {
    /// (source file, text its first ```swift block must contain, snippet file, slice).
    static let examples: [(source: String, anchor: String, snippet: String, slice: String)] = [
        ("Sources/MediaCore/Pipeline.swift", "ToneGenerator", "Snippets/GettingStarted.swift", "pipeline"),
        ("Sources/MediaCore/MediaError.swift", ".truncated", "Snippets/Errors.swift", "error"),
        ("Sources/MediaFormats/CAF/CAFMuxer.swift", "CAFMuxer(", "Snippets/EncodeToCAF.swift", "muxer"),
        ("Sources/MediaFormats/WAV/WAVReader-Diagnostic.swift", "diagnostics", "Snippets/Errors.swift", "diagnostics"),
        ("Sources/MediaCore/MediaSample+PCM.swift", "MediaSample(pcm:", "Snippets/TypedPCM.swift", "make"),
        ("Sources/MediaCore/MediaSample+PCM.swift", "pcmPlanes:", "Snippets/TypedPCM.swift", "planar"),
        ("Sources/MediaCore/MediaSample+PCM.swift", "withPCM(", "Snippets/TypedPCM.swift", "peak"),
        ("Sources/MediaCore/MediaSample+PCM.swift", "pcmFrames(", "Snippets/TypedPCM.swift", "slice"),
        ("Sources/MediaCore/MediaSample+PCM.swift", "rightChannel", "Snippets/TypedPCM.swift", "values"),
        ("Sources/MediaCore/MediaSample+PCM.swift", "withMutablePCM(", "Snippets/TypedPCM.swift", "mutate")
    ]

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func lines(_ path: String) throws -> [String] {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The lines between `// snippet.<name>` and `// snippet.end`.
    static func slice(_ name: String, of path: String) throws -> [String] {
        let all = try lines(path)
        let start = try #require(all.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "// snippet.\(name)" })
        let end = try #require(all[start...].firstIndex { $0.trimmingCharacters(in: .whitespaces) == "// snippet.end" })
        return Array(all[(start + 1)..<end])
    }

    /// The first ```swift block of a doc comment containing `anchor`, without the `/// ` prefixes.
    static func docExample(in path: String, containing anchor: String) throws -> [String] {
        let all = try lines(path)
        var index = 0
        while let open = all[index...].firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "/// ```swift" })
        {
            let close = try #require(
                all[(open + 1)...].firstIndex { $0.trimmingCharacters(in: .whitespaces) == "/// ```" })
            let body = all[(open + 1)..<close].map { line -> String in
                let trimmed = line.drop { $0 == " " }
                return String(trimmed.dropFirst(trimmed.hasPrefix("/// ") ? 4 : 3))
            }
            if body.contains(where: { $0.contains(anchor) }) { return body }
            index = close + 1
        }
        Issue.record("no ```swift block containing \(anchor) in \(path)")
        return []
    }

    @Test(arguments: 0..<examples.count)
    func docExampleIsItsSnippet(_ index: Int) throws {
        let example = Self.examples[index]
        let snippet = try Self.slice(example.slice, of: example.snippet)
        #expect(!snippet.isEmpty)
        let doc = try Self.docExample(in: example.source, containing: example.anchor)
        #expect(doc == snippet, "\(example.source)'s example differs from \(example.snippet) slice \(example.slice)")
    }

    /// The DocC articles of every module: each `@Snippet` names a program in `Snippets/` and a slice it has,
    /// and no article has a ```swift block of its own (which nothing would compile), but for the one
    /// `Package.swift` fragment in GettingStarted, which is a manifest, not a program.
    @Test func articlesShowOnlyCompiledSnippets() throws {
        let sources = Self.packageRoot.appendingPathComponent("Sources")
        let articles = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.contains(".docc/") && $0.hasSuffix(".md") }
        #expect(articles.count > 10)
        var snippetCount = 0
        for article in articles {
            let lines = try Self.lines("Sources/" + article)
            for (index, line) in lines.enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed == "```swift" {
                    let next = lines.indices.contains(index + 1) ? lines[index + 1] : ""
                    #expect(next == "// Package.swift", "\(article):\(index + 1) has a Swift block nothing compiles")
                }
                guard trimmed.hasPrefix("@Snippet(path: \"MediaPipeline/Snippets/") else { continue }
                let parts = trimmed.split(separator: "\"")
                try #require(parts.count >= 4, "\(article):\(index + 1): \(trimmed)")
                let file = "Snippets/" + parts[1].dropFirst("MediaPipeline/Snippets/".count) + ".swift"
                #expect(try !Self.slice(String(parts[3]), of: file).isEmpty, "\(article):\(index + 1)")
                snippetCount += 1
            }
        }
        #expect(snippetCount >= 30)
    }
}
