import ArgumentParser
import ExampleSupport
import MediaPipeline

/// `audio-devices [--json] [--watch] [--server SERVER]`: `pactl list short sinks/sources` with the
/// defaults marked, and `pactl subscribe` with the devices' properties.
struct AudioDevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio-devices",
        abstract: "List the audio inputs and outputs of the PulseAudio server, or watch them come and go.",
        discussion: """
            Talks to the server libpulse finds (PULSE_SERVER, then the user's runtime folder; PipeWire's \
            PulseAudio server works too) unless --server names one. Lists outputs (sinks) and inputs \
            (sources, including the monitors of outputs) with channels, default sample rate and the \
            default marked '*'. --watch prints one line per event (added, removed, changed, default) until \
            Ctrl-C (exit 130) or until the server goes away (exit 1). --json prints one JSON object (with \
            --watch, one per line); its keys are listed in README.md and are a stable interface.

            Examples:
              audio-devices
              audio-devices --json
              audio-devices --watch --json
              audio-devices --server unix:/tmp/pulse/native
            """,
        version: "0.1.0")

    @Flag(help: "Print JSON: one object, or with --watch one object per line.")
    var json = false

    @Flag(help: "Print one line per device event until Ctrl-C, instead of the list.")
    var watch = false

    @Option(
        help: ArgumentHelp(
            "The server to talk to, in libpulse's syntax (unix:/path/native, tcp:host:4713).", valueName: "SERVER"))
    var server: String?

    @Option(help: "Seconds to wait for the server to answer.")
    var timeout = 5.0

    /// `--verbose`: also say which server answered.
    @OptionGroup var logging: VerboseOption

    @Flag(name: .shortAndLong, help: "Print nothing on standard error but errors (no 'watching' line).")
    var quiet = false
    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func validate() throws {
        guard timeout > 0, timeout <= 600 else {
            throw ValidationError("--timeout must be more than 0 and at most 600 seconds")
        }
    }

    func run() throws {
        let limit = Duration.milliseconds(Int64(timeout * 1000))
        if watch {
            try watchEvents(limit)
        } else {
            let pulse = try PulseConnection(server: server, clientName: "audio-devices", timeout: limit)
            if logging.verbose && !quiet { printError("audio-devices: listing the devices of \(pulse.server)") }
            let (inputs, outputs) = try pulse.devices(timeout: limit)
            printLine(
                json
                    ? DeviceJSON.list(inputs: inputs, outputs: outputs)
                    : DeviceText.list(inputs: inputs, outputs: outputs))
        }
    }

    /// Prints each event as it comes until Ctrl-C or the connection is lost (then throws its error).
    private func watchEvents(_ limit: Duration) throws {
        let monitor = try AudioDeviceMonitor(server: server, clientName: "audio-devices", timeout: limit)
        if !quiet { printError("audio-devices: watching \(monitor.connection.server) (Ctrl-C to stop)") }
        let json = json
        try blockingAwait(cancelWhen: { Interrupt.wasRequested }) {
            for await event in monitor.events {
                printLine(json ? DeviceJSON.event(event) : DeviceText.event(event))
            }
        }
        if let failure = monitor.failure, !Interrupt.wasRequested { throw failure }
    }
}
