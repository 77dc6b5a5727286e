// The examples' command lines on swift-argument-parser, in the house style: `--help` and `--version`
// as ArgumentParser prints them; a usage error as one line `<name>: <message>` and exit status 64
// (EX_USAGE); a failure as one line `<name>: <error>` and status 1; Ctrl-C finishes the files and
// exits 130.
public import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

extension ParsableCommand {
    /// Parses the command line and runs the command in the house style (see the top of this file).
    public static func runInHouseStyle(_ name: String) -> Never {
        Interrupt.install()
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            let status = exitCode(for: error)
            if status == .success {
                print(fullMessage(for: error))
                Glibc.exit(0)
            }
            printError("\(name): \(message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid arguments")")
            Glibc.exit(status.rawValue)
        }
        runExample(name) {
            var running = command
            do {
                try running.run()
            } catch let code as ExitCode {
                return code.rawValue
            }
            return Interrupt.wasRequested ? 130 : 0
        }
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
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w <= 16_384, h <= 16_384 else {
            return nil
        }
        (width, height) = (w, h)
    }

    /// The default value's text in `--help`.
    public var defaultValueDescription: String { "\(width)x\(height)" }
}
