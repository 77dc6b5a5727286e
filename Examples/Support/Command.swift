// The examples' command lines on swift-argument-parser, in the house style: `--help` and `--version`
// as ArgumentParser prints them; a usage error as one line `<name>: <message>` and exit status 64
// (EX_USAGE); a failure as one line `<name>: <error>` and status 1; Ctrl-C finishes the files and
// exits 130 (a server's SIGTERM, with Interrupt.installTermination, finishes them and exits 0).
public import ArgumentParser
public import MediaCore
#if canImport(Glibc)
    import Glibc
#endif

extension ParsableCommand {
    /// Parses the command line (or `arguments`, the program name first, when given) and runs the
    /// command in the house style (see the top of this file).
    public static func runInHouseStyle(_ name: String, arguments: [String]? = nil) -> Never {
        exitIfLicenceRequested(arguments ?? CommandLine.arguments)
        Interrupt.install()
        let command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments.map { Array($0.dropFirst()) })
        } catch {
            Glibc.exit(report(error, as: name))
        }
        runExample(name) {
            var running = command
            do {
                try running.run()
            } catch let code as ExitCode {
                return code.rawValue
            } catch let error where error is MediaError || error is Interrupt.Stopped {
                throw error  // runExample prints these (and exits 130 for an interrupt)
            } catch {
                // `--help` and `--version` arrive here (ArgumentParser's help command throws), and
                // usage errors found while running.
                return report(error, as: name)
            }
            return Interrupt.wasRequested && !Interrupt.termination.isRequested ? 130 : 0
        }
    }

    /// Prints an ArgumentParser error in the house style and returns its exit status: help and version
    /// text on standard output (status 0), a usage error as one line on standard error (status 64).
    private static func report(_ error: any Error, as name: String) -> Int32 {
        let status = exitCode(for: error)
        if status == .success {
            print(fullMessage(for: error))
            return 0
        }
        let line = message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid arguments"
        printError("\(name): \(line)")
        return status.rawValue
    }
}

/// `1280x720` as an argument.
public struct VideoSize: ExpressibleByArgument, Sendable, Hashable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Parses `WIDTHxHEIGHT`.
    public init?(argument: String) {
        let parts = argument.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w <= 16_384, h <= 16_384
        else {
            return nil
        }
        (width, height) = (w, h)
    }

    /// The default value's text in `--help`.
    public var defaultValueDescription: String { "\(width)x\(height)" }
}

/// A time as the ffmpeg CLI takes it: seconds (`12`, `1.25`) or `[HH:]MM:SS[.fraction]`, to the
/// microsecond, exactly (`1.1` is 11/10 s, not the nearest `Double`).
public struct TimeArgument: ExpressibleByArgument, Sendable, Hashable {
    /// The time.
    public var time: MediaTime

    /// Parses seconds or `[HH:]MM:SS[.fraction]` (at most six decimals, not negative).
    public init?(argument: String) {
        let fields = argument.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count) else { return nil }
        var whole: Int64 = 0
        for field in fields.dropLast() {
            guard let value = Int64(field), value >= 0, field.allSatisfy(\.isASCII), value < 1_000_000 else {
                return nil
            }
            whole = whole * 60 + value
        }
        let last = fields[fields.count - 1].split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(last.count), let seconds = Int64(last[0]), seconds >= 0, last[0].allSatisfy(\.isNumber)
        else { return nil }
        if fields.count > 1 && seconds >= 60 { return nil }
        let fraction = last.count == 2 ? last[1] : ""
        guard fraction.count <= 6, fraction.allSatisfy({ $0.isASCII && $0.isNumber }),
            last.count == 1 || !fraction.isEmpty
        else { return nil }
        let micros = Int64(fraction + String(repeating: "0", count: 6 - fraction.count)) ?? 0
        let (total, overflow) = (whole * 60 + seconds).multipliedReportingOverflow(by: 1_000_000)
        guard !overflow else { return nil }
        time = MediaTime(value: total + micros, timescale: 1_000_000)
    }
}
