/// The metadata keys the library's diagnostics use: stable names a log handler can filter on. A
/// diagnostic carries the ones that apply; values are decimal integers or plain words.
///
/// | Key | Value |
/// |---|---|
/// | `stage` | the reporting component's ``MediaStage/name`` (`WAVReader`, `H264Decoder`, …) |
/// | `code` | what happened, a camel-case word stable across releases (`resynchronized`, `dataBeyondEndOfFile`, `framesConcealed`, `disconnected`, …) |
/// | `byteOffset` | where in the input, counted from its first byte |
/// | `sampleIndex` | the index of the sample (access unit, packet) the component was given or made |
/// | `count` | how many bytes, frames or samples the diagnostic is about |
/// | `attempt` | a reconnection attempt, from 1 |
public enum DiagnosticKey {
    /// The reporting component's name, e.g. `ADTSReader`.
    public static let stage = "stage"
    /// What happened, as a stable camel-case word, e.g. `resynchronized`.
    public static let code = "code"
    /// Where in the input, in bytes from its start.
    public static let byteOffset = "byteOffset"
    /// The index of the sample the diagnostic is about.
    public static let sampleIndex = "sampleIndex"
    /// How many bytes, frames or samples the diagnostic is about.
    public static let count = "count"
    /// A reconnection attempt, counted from 1.
    public static let attempt = "attempt"
}
