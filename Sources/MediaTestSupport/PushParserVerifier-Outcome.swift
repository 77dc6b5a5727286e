public import MediaCore

extension PushParserVerifier {
    /// One thing a parser's ``MediaFormats/PushParser/next()`` gave: an output or an error.
    public enum Event<Output>: CustomStringConvertible {
        /// An output, in order.
        case output(Output)
        /// An error thrown.
        case error(MediaError)

        /// Whether two events are the same: equal outputs, or errors of the same code at the same byte
        /// offset (the wording of the message may differ).
        func matches(_ other: Event) -> Bool where Output: Equatable {
            switch (self, other) {
            case (.output(let a), .output(let b)): return a == b
            case (.error(let a), .error(let b)): return a.code == b.code && a.byteOffset == b.byteOffset
            default: return false
            }
        }

        /// `output <value>` or `error <error>`, shortened.
        public var description: String {
            switch self {
            case .output(let output): return "output " + PushParserVerifier.describe(output)
            case .error(let error): return "error \(error)"
            }
        }
    }

    /// What a parser gave for the whole input.
    public struct Outcome<Output, State> {
        /// Outputs and errors, in order.
        public var events: [Event<Output>]
        /// The parser's state at the end, as the `state` closure saw it.
        public var state: State

        /// The outputs, in order.
        public var outputs: [Output] {
            events.compactMap { if case .output(let output) = $0 { output } else { nil } }
        }

        /// The errors, in order.
        public var errors: [MediaError] {
            events.compactMap { if case .error(let error) = $0 { error } else { nil } }
        }

        /// The first error, or `nil` when there was none.
        public var error: MediaError? { errors.first }
    }

    /// A split whose outcome differs from the whole input's.
    public struct Mismatch: Error, CustomStringConvertible {
        /// The split that differs.
        public var split: Split
        /// The first difference.
        public var message: String

        /// `Split <split>: <message>`.
        public var description: String { "Split \(split): \(message)" }
    }
}
