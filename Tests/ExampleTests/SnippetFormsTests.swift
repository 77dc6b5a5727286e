import Foundation
import MediaTestSupport
import Synchronization
import Testing

/// Every program in `Snippets/` (the code the README and the articles show) compiles in Swift 6 mode
/// with no warning in the three places a user pastes it: as a `main.swift` (top-level code, as `swift
/// build` builds it), inside the `main()` of a `@main` type, and inside a function of their own. A
/// snippet that only compiles as top-level code (a global it reads from a function, a closure that is
/// only `Sendable` because top-level variables are main-actor globals), or that warns in one form (a
/// synchronous call awaited), fails here.
///
/// The forms are made by moving the snippet's statements into the body of `static func main()` and of
/// `func snippet()`, leaving its imports and declarations (types, extensions, functions: what starts at
/// column 0 and ends at a `}` at column 0) at file scope; `swiftc -typecheck -warnings-as-errors`
/// judges each against the modules of this build.
@Suite(.timeLimit(.minutes(5))) struct SnippetFormsTests {
    static let root = TestPaths.packageRoot()

    /// A snippet split into its imports, its file-scope declarations and its top-level statements.
    struct Parts {
        var imports: [String] = []
        var declarations: [String] = []
        var statements: [String] = []
    }

    /// Whether `line` starts a file-scope declaration (or is an attribute above one).
    static func startsDeclaration(_ line: String) -> Bool {
        if line.hasPrefix("@") { return true }
        var rest = Substring(line)
        let modifiers = ["public ", "private ", "fileprivate ", "internal ", "final ", "nonisolated "]
        while let modifier = modifiers.first(where: { rest.hasPrefix($0) }) { rest = rest.dropFirst(modifier.count) }
        return ["struct ", "class ", "enum ", "extension ", "protocol ", "actor ", "func "].contains {
            rest.hasPrefix($0)
        }
    }

    static func split(_ text: String) -> Parts {
        var parts = Parts()
        var inDeclaration = false
        var pendingAttributes: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if inDeclaration {
                parts.declarations.append(line)
                if line == "}" { inDeclaration = false }
            } else if line.hasPrefix("import ") {
                parts.imports.append(line)
            } else if startsDeclaration(line) {
                if line.hasPrefix("@") && !line.contains("{") && !line.contains(" func ") {
                    pendingAttributes.append(line)  // an attribute on the line above a declaration
                    continue
                }
                parts.declarations += pendingAttributes + [line]
                pendingAttributes = []
                inDeclaration = line.hasSuffix("{") || !line.hasSuffix("}")
            } else {
                parts.statements += pendingAttributes + [line]
                pendingAttributes = []
            }
        }
        return parts
    }

    /// The `@main` and function forms of `parts`, in one file.
    static func wrapped(_ parts: Parts) -> String {
        let body = parts.statements.map { $0.isEmpty ? "" : "        " + $0 }.joined(separator: "\n")
        return (parts.imports + parts.declarations).joined(separator: "\n") + """

            @main enum SnippetAsMainType {
                static func main() async throws {
            \(body)
                }
            }

            func snippetInsideAFunction() async throws {
            \(body)
            }

            """
    }

    /// `swiftc -typecheck` of `file` against this build's modules, warnings as errors; its diagnostics.
    static func typecheck(_ file: String, asLibrary: Bool) throws -> ExternalTool.Result {
        let build = TestPaths.buildProductsDirectory
        return try ExternalTool.run(
            "swiftc",
            [
                "-typecheck", file, "-swift-version", "6", "-warnings-as-errors", "-I", build + "/Modules",
                "-module-cache-path", build + "/ModuleCache", "-I/usr/include/x86_64-linux-gnu"
            ] + cModuleMaps.flatMap { ["-Xcc", "-fmodule-map-file=" + $0] } + (asLibrary ? ["-parse-as-library"] : []))
    }

    /// The module maps of the C modules a snippet's imports reach: ours, those SwiftPM made in the build
    /// folder for the packages' C targets (swift-nio's shims, which MediaIngest's imports reach), and
    /// those a package ships in a target's `include/` folder (swift-atomics' `_AtomicsShims`).
    static let cModuleMaps: [String] = {
        let build = TestPaths.buildProductsDirectory
        let files = FileManager.default
        var maps: [String] = []
        // The system-library targets: CMediaFFmpeg, CPulseAudio, CSRT...
        for name in ((try? files.contentsOfDirectory(atPath: root + "/Sources")) ?? []).sorted() {
            let map = root + "/Sources/" + name + "/module.modulemap"
            if files.fileExists(atPath: map) { maps.append(map) }
        }
        for name in ((try? files.contentsOfDirectory(atPath: build)) ?? []).sorted() where name.hasSuffix(".build") {
            let map = build + "/" + name + "/module.modulemap"
            if files.fileExists(atPath: map) { maps.append(map) }
        }
        let checkouts = root + "/.build/checkouts"
        for package in ((try? files.contentsOfDirectory(atPath: checkouts)) ?? []).sorted() {
            let sources = checkouts + "/" + package + "/Sources"
            for target in ((try? files.contentsOfDirectory(atPath: sources)) ?? []).sorted() {
                let map = sources + "/" + target + "/include/module.modulemap"
                if files.fileExists(atPath: map) { maps.append(map) }
            }
        }
        return maps
    }()

    @Test func everySnippetCompilesAsTopLevelCodeInAMainTypeAndInAFunctionWithoutWarnings() throws {
        let dir = try TemporaryDirectory()
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/Snippets")
            .filter { $0.hasSuffix(".swift") }.sorted()
        #expect(names.count >= 20)
        let failures = Mutex<[String]>([])
        let folder = dir.path
        DispatchQueue.concurrentPerform(iterations: names.count) { index in
            let name = names[index]
            do {
                let text = try String(contentsOfFile: Self.root + "/Snippets/" + name, encoding: .utf8)
                let topLevel = folder + "/top-\(index)/main.swift"
                let wrapped = folder + "/wrapped-\(index)/\(name)"
                for file in [topLevel, wrapped] {
                    try FileManager.default.createDirectory(
                        atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                }
                try text.write(toFile: topLevel, atomically: true, encoding: .utf8)
                try Self.wrapped(Self.split(text)).write(toFile: wrapped, atomically: true, encoding: .utf8)
                for (file, form, library) in [
                    (topLevel, "as main.swift", false), (wrapped, "in a @main type and in a function", true)
                ] {
                    let result = try Self.typecheck(file, asLibrary: library)
                    if result.status != 0 || !result.stderr.isEmpty {
                        failures.withLock { $0.append("\(name) \(form):\n\(result.stderr)") }
                    }
                }
            } catch {
                failures.withLock { $0.append("\(name): \(error)") }
            }
        }
        for failure in failures.withLock({ $0 }) { Issue.record(Comment(rawValue: failure)) }
    }
}
