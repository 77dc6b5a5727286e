import ArgumentParser
import ExampleSupport
import Foundation
import MediaPipeline

/// `caf-info FILE.caf [--json]`: `afinfo` for Core Audio Format files, read by CAFReader (pure Swift).
struct CAFInfo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caf-info",
        abstract: "Print what a Core Audio Format (.caf) file holds, like Apple's afinfo.",
        discussion: """
            Prints the chunks of the file in order (type, offset of the header, declared size; -1 for a \
            'data' chunk that runs to the end of the file), the 'desc' fields under the specification's \
            names, the magic cookie in hex, the 'info' strings, the audio data's offset and size, the packet \
            count and, from 'pakt', the valid, priming and remainder frames; the duration is valid frames ÷ \
            sample rate. --json prints the same as one JSON object on standard output; its keys are listed \
            in README.md and are a stable interface. A file CAFReader cannot read exits 1 with one line \
            naming the chunk and the byte offset.

            Examples:
              caf-info rec.caf
              caf-info rec.caf --json | jq .primingFrames
            """,
        version: "0.2.0")

    @Argument(help: ArgumentHelp("The CAF file to read.", valueName: "FILE.caf"))
    var file: String

    @Flag(help: "Print one JSON object on standard output instead of text.")
    var json = false

    /// `--verbose`: CAFReader reports nothing it works around today; here for the examples' shared flags.
    @OptionGroup var logging: VerboseOption

    @Flag(name: .shortAndLong, help: "Print no warnings (errors only); the file's description is still printed.")
    var quiet = false

    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func run() throws {
        let reader = try CAFReader(path: file)
        let info = CAFFileInfo(path: file, reader: reader)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(info), as: UTF8.self))
        } else {
            print(info.text)
        }
    }
}
