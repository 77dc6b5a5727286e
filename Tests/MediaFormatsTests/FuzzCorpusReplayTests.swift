import Foundation
import MediaFuzzTargets
import MediaTestSupport
import Testing

/// Every input of every fuzz corpus (`Fuzz/Corpus/<target>`, the inputs the fuzzer kept because each
/// reached code the others did not) through the same calls the libFuzzer executables make
/// (``FuzzTarget/run(_:)``): none may trap or hang, and under AddressSanitizer none may touch memory it
/// does not own. This is the corpus replay the fuzzer's own build would give, run in the test bundle, so
/// that `make test` and the AddressSanitizer run include it without a fuzzer build (`make fuzz` still fuzzes).
@Suite(.timeLimit(.minutes(10))) struct FuzzCorpusReplayTests {
    static let corpus = TestPaths.packageRoot() + "/Fuzz/Corpus"

    /// The corpus folders and the targets are the same set: a corpus without a target, or a target
    /// without a corpus, would go unreplayed.
    @Test func everyCorpusHasATargetAndEveryTargetACorpus() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.corpus)
        #expect(Set(folders) == Set(FuzzTarget.allCases.map(\.rawValue)))
    }

    @Test(arguments: FuzzTarget.allCases) func everyInputRunsToItsEnd(_ target: FuzzTarget) throws {
        let folder = Self.corpus + "/" + target.rawValue
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names.count >= 10, "\(folder) holds \(names.count) inputs")
        var bytes = 0
        for name in names {
            let input = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
            target.run(input)
            bytes += input.count
        }
        #expect(bytes > 0)
    }
}
