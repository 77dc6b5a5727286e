/// A reader that keeps what it worked around as a list of ``MediaDiagnostic``s: the one diagnostic type
/// every reader offers, with the codes and metadata it logs.
///
/// `WAVReader`, `CAFReader`, `ADTSReader`, `AudioFileReader`, `AnnexBReader` and a `ContainerDemuxer`'s
/// stream sources adopt it, so code that handles diagnostics handles one type whichever reader it was
/// given, and matches on ``MediaDiagnostic/code`` (the codes <doc:Logging> lists):
///
/// ```swift
/// func report(_ reader: any DiagnosticListing) {
///     for diagnostic in reader.mediaDiagnostics where diagnostic.level >= .warning {
///         print(diagnostic.code ?? "", diagnostic.byteOffset ?? -1, diagnostic.message)
///     }
/// }
/// ```
///
/// Some readers also keep a typed list of their own (`WAVReader.Diagnostic`, `ADTSDiagnostic`,
/// `AudioFileStreamDiagnostic`), written before this protocol and kept for the code that uses it; each
/// of its entries is one entry of ``mediaDiagnostics``, in the same order.
public protocol DiagnosticListing: DiagnosticReporting {
    /// What the reader worked around so far, in the order it was found, as it is logged: the message,
    /// the level, and the metadata under ``DiagnosticKey`` (`stage`, `code`, `byteOffset`, …).
    var mediaDiagnostics: [MediaDiagnostic] { get }
}
