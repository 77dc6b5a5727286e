import MediaCore
public import MediaFormats

/// Checks that a ``MediaFormats/PushParser`` gives the same outputs and errors however its input is split,
/// as NIO's `ByteToMessageDecoderVerifier` does for decoders.
///
/// ```swift
/// let outcome = try PushParserVerifier.verify(stream) { ADTSParser() }
/// #expect(outcome.outputs.count == 215)
/// ```
///
/// It feeds the input to a fresh parser in every ``Split``: whole, one byte at a time, and in the seeded
/// random pieces of ``Split/random(seed:)`` (empty pushes included). After every push it drains the
/// parser (``MediaFormats/PushParser/next()`` until `nil`), then calls
/// ``MediaFormats/PushParser/finish()`` and drains again. It checks that:
/// - every split gives the same outputs, in order, and the same errors: same code and byte offset (the
///   message may word the same fault differently);
/// - the optional `state` (a parser's diagnostics, its byte count) is the same at the end of every split;
/// - after the end, ``MediaFormats/PushParser/next()`` keeps returning `nil`;
/// - a parser that goes on after an error (``ErrorPolicy/continueAfterErrors``) makes progress: it
///   cannot throw more errors than there are input bytes.
///
/// A difference throws a ``Mismatch`` naming the split and the first difference, so a test fails with a
/// message that says how to reproduce it. The outcome of the whole input is returned for further checks.
public enum PushParserVerifier {
    /// What to do when ``MediaFormats/PushParser/next()`` throws.
    public enum ErrorPolicy: Sendable {
        /// Stop feeding: the error ends the parse (a parser whose errors are final).
        case stopAtFirstError
        /// Record the error and call ``MediaFormats/PushParser/next()`` again (a parser that skips what
        /// it reports and goes on, like ``MediaFormats/AnnexBScanner``).
        case continueAfterErrors
    }

    /// The seeds of the random splits unless told otherwise.
    public static let standardSeeds: [UInt64] = [1, 2, 3, 4, 5, 6, 7, 8]

    /// The result for a parser without state worth comparing.
    public struct NoState: Hashable, Sendable {
        /// The only value.
        public init() {}
    }

    /// Verifies the parsers `makeParser` makes on `input` and returns the outcome of the whole input.
    ///
    /// - Parameters:
    ///   - input: the bytes to parse.
    ///   - seeds: one random split per seed.
    ///   - byteByByte: whether to feed one byte at a time too (turn off only for inputs of megabytes).
    ///   - errorPolicy: whether an error ends the parse.
    ///   - makeParser: makes a fresh parser.
    ///   - state: what to compare of the parser at the end besides its outputs.
    /// - Throws: a ``Mismatch`` for the first split that differs from the whole input's.
    @discardableResult
    public static func verify<Parser: PushParser, State: Equatable>(
        _ input: some Collection<UInt8>,
        seeds: [UInt64] = standardSeeds,
        byteByByte: Bool = true,
        errorPolicy: ErrorPolicy = .stopAtFirstError,
        parser makeParser: () -> Parser,
        state: (Parser) -> State
    ) throws(Mismatch) -> Outcome<Parser.Output, State> where Parser.Output: Equatable {
        let bytes = Array(input)
        var splits: [Split] = [.whole]
        if byteByByte { splits.append(.byteByByte) }
        splits += seeds.map { .random(seed: $0) }
        var reference: Outcome<Parser.Output, State>?
        for split in splits {
            var parser = makeParser()
            let events = try feed(bytes, split: split, to: &parser, errorPolicy: errorPolicy)
            let outcome = Outcome(events: events, state: state(parser))
            if let reference {
                try compare(outcome, with: reference, split: split)
            } else {
                reference = outcome
            }
        }
        // `splits` starts with `.whole`, so the reference is set.
        return reference ?? Outcome(events: [], state: state(makeParser()))
    }

    /// Verifies the parsers `makeParser` makes on `input`, comparing their outputs and errors only.
    ///
    /// - Throws: a ``Mismatch`` for the first split that differs from the whole input's.
    @discardableResult
    public static func verify<Parser: PushParser>(
        _ input: some Collection<UInt8>,
        seeds: [UInt64] = standardSeeds,
        byteByByte: Bool = true,
        errorPolicy: ErrorPolicy = .stopAtFirstError,
        parser makeParser: () -> Parser
    ) throws(Mismatch) -> Outcome<Parser.Output, NoState> where Parser.Output: Equatable {
        try verify(
            input, seeds: seeds, byteByByte: byteByByte, errorPolicy: errorPolicy, parser: makeParser,
            state: { _ in NoState() })
    }

    /// Feeds `bytes` to `parser` in the pieces of `split`, draining it after each, and returns what came out.
    private static func feed<Parser: PushParser>(
        _ bytes: [UInt8], split: Split, to parser: inout Parser, errorPolicy: ErrorPolicy
    ) throws(Mismatch) -> [Event<Parser.Output>] {
        var events: [Event<Parser.Output>] = []
        var errorCount = 0
        /// Drains the parser; `false` when an error ended the parse.
        func drain() throws(Mismatch) -> Bool {
            while true {
                do throws(MediaError) {
                    guard let output = try parser.next() else { return true }
                    events.append(.output(output))
                } catch {
                    events.append(.error(error))
                    errorCount += 1
                    if errorPolicy == .stopAtFirstError { return false }
                    guard errorCount <= bytes.count + 1 else {
                        throw Mismatch(
                            split: split,
                            message:
                                "\(errorCount) errors from \(bytes.count) bytes: the parser throws without making progress (last: \(error))"
                        )
                    }
                }
            }
        }
        for piece in split.pieces(count: bytes.count) {
            parser.push(bytes[piece])
            guard try drain() else { return events }
        }
        parser.finish()
        guard try drain() else { return events }
        let again: Result<Parser.Output?, MediaError>
        do throws(MediaError) { again = .success(try parser.next()) } catch { again = .failure(error) }
        switch again {
        case .success(nil): return events
        case .success(let output?):
            throw Mismatch(
                split: split, message: "next() gave \(describe(output)) after it had returned nil at the end")
        case .failure(let error):
            throw Mismatch(split: split, message: "next() threw \(error) after it had returned nil at the end")
        }
    }

    /// Throws a ``Mismatch`` describing the first difference between `outcome` and `reference`.
    private static func compare<Output: Equatable, State: Equatable>(
        _ outcome: Outcome<Output, State>, with reference: Outcome<Output, State>, split: Split
    ) throws(Mismatch) {
        for (index, (got, expected)) in zip(outcome.events, reference.events).enumerated() {
            guard !got.matches(expected) else { continue }
            throw Mismatch(
                split: split,
                message: "event \(index) is \(got), but whole it is \(expected)")
        }
        guard outcome.events.count == reference.events.count else {
            let extra =
                outcome.events.count > reference.events.count
                ? "an extra \(outcome.events[reference.events.count])"
                : "no \(reference.events[outcome.events.count])"
            throw Mismatch(
                split: split,
                message: "\(outcome.events.count) events where whole there are \(reference.events.count): \(extra)")
        }
        guard outcome.state == reference.state else {
            throw Mismatch(
                split: split,
                message: "the end state is \(describe(outcome.state)), but whole it is \(describe(reference.state))")
        }
    }

    /// Up to 300 characters of `value`, for messages.
    static func describe(_ value: Any) -> String {
        let text = String(describing: value)
        return text.count > 300 ? text.prefix(300) + "…" : text
    }
}
