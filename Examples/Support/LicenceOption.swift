// `--licence` on every example: prints FFmpegLicenceReport (which FFmpeg libraries and codecs this
// binary uses, under which licence, and what that means for distributing it) and exits 0, whatever
// else is on the command line, the way `--version` does.
public import ArgumentParser
#if canImport(Glibc)
    import Glibc
#endif
import MediaFFmpeg

/// The `--licence` flag as an option group, so that each ArgumentParser command lists it in `--help`.
/// The flag itself is acted on before parsing (``exitIfLicenceRequested(_:)``), so that the command's
/// required arguments need not be given.
public struct LicenceOption: ParsableArguments {
    /// Print the licence report and exit.
    @Flag(
        name: .customLong("licence"),
        help:
            "Print which FFmpeg libraries and codecs this binary uses, their licences and what that means for distributing it (with --json: as JSON), and exit."
    )
    public var licence = false

    /// The flag, unset.
    public init() {}
}

/// When the arguments (the program name first) hold `--licence`, prints the licence report on
/// standard output (as JSON when they also hold `--json`) and exits 0; otherwise returns. Arguments
/// after `--` are not options.
public func exitIfLicenceRequested(_ arguments: [String] = CommandLine.arguments) {
    let options = arguments.dropFirst().prefix { $0 != "--" }
    guard options.contains("--licence") else { return }
    let report = FFmpegLicenceReport()
    print(options.contains("--json") ? report.json : report.description)
    exit(0)
}
