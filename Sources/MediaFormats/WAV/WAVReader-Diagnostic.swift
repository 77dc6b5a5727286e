import Logging
public import MediaCore

extension WAVReader {
    /// Something wrong with a WAV file that the reader worked around instead of failing, like FFmpeg's and
    /// SoX's warnings: the audio it delivers is still exactly what the file holds.
    ///
    /// ```swift
    /// let reader = try WAVReader(bytes: cutWAV)
    /// var frames = 0
    /// while let sample = try reader.next() { frames += sample.frameCount }
    /// print(frames)  // 1000: every whole frame the file holds
    /// for diagnostic in reader.diagnostics where diagnostic.code == .dataBeyondEndOfFile {
    ///     // "WAV 'data' chunk declares 192000 bytes but the file holds 4000 after its header; reading those at byte offset 36."
    ///     print(diagnostic)
    /// }
    /// ```
    public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
        /// The kind of irregularity. An open set: new codes may be added, so `switch` with a `default`.
        public struct Code: Sendable, Hashable, CustomStringConvertible {
            private let name: String
            private init(_ name: String) { self.name = name }

            /// The `data` chunk declares more bytes than the file holds (a file cut short, or a writer that
            /// never patched the size). The reader delivers the frames that are there.
            public static let dataBeyondEndOfFile = Code("data beyond end of file")
            /// The data ends partway through a frame; the incomplete frame is not delivered.
            public static let partialFrameDropped = Code("partial frame dropped")
            /// The `data` chunk's size is open (`0xFFFFFFFF`, or 0 with bytes after it), as streaming
            /// writers leave it; the reader reads to the end of the file, as FFmpeg does.
            public static let openDataSize = Code("open data size")
            /// A non-zero `dwChannelMask` names a different number of speakers than there are channels; the
            /// default layout for the channel count is used instead.
            public static let channelMaskIgnored = Code("channel mask ignored")
            /// `wValidBitsPerSample` exceeds the container size; the samples are delivered as stored.
            public static let validBitsExceedContainer = Code("valid bits exceed container")
            /// A second `fmt ` chunk before `data`; the first one is used.
            public static let duplicateFormatChunk = Code("duplicate fmt chunk")

            /// The code's name, e.g. `partial frame dropped`.
            public var description: String { name }

            /// The code as the camel-case word logged under ``/MediaCore/DiagnosticKey/code``, e.g.
            /// `partialFrameDropped`.
            public var identifier: String {
                let words = name.split(separator: " ")
                return words.enumerated().map {
                    $0.offset == 0 ? String($0.element) : $0.element.prefix(1).uppercased() + $0.element.dropFirst()
                }
                .joined()
            }
        }

        /// The kind of irregularity.
        public var code: Code
        /// What was found and what the reader did, as one sentence without the location.
        public var message: String
        /// Where in the file the irregular structure starts.
        public var byteOffset: Int64

        /// A diagnostic with every field given.
        public init(_ code: Code, _ message: String, byteOffset: Int64) {
            self.code = code
            self.message = message
            self.byteOffset = byteOffset
        }

        /// The message and its location, as one sentence.
        public var description: String { "\(message) at byte offset \(byteOffset)." }

        /// The diagnostic as a warning reported by `stage`, with `stage`, `code` and `byteOffset` metadata.
        public func mediaDiagnostic(stage: String) -> MediaDiagnostic {
            MediaDiagnostic(
                .warning, description,
                metadata: [
                    DiagnosticKey.stage: stage, DiagnosticKey.code: code.identifier,
                    DiagnosticKey.byteOffset: String(byteOffset)
                ])
        }
    }
}
