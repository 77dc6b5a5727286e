import MediaCore

extension ForwardInput {
    /// Feeds `parser` from this input, in pieces of at most `pieceSize` bytes, until `isDone` says so
    /// after a parse; the parser's skips are skipped here, without reading what they pass into memory.
    /// This is how ``WAVReader`` and ``CAFReader`` walk their headers with the stream parser's code.
    ///
    /// - Parameters:
    ///   - parser: the container's parser, at the start of the file.
    ///   - pieceSize: the most bytes read at once (1 when the input must stop at the first audio byte).
    ///   - what: the header's name, for the error of an input that ends before `isDone`.
    ///   - isDone: whether the parse has gone far enough, given the parser and the events of the last parse.
    /// - Throws: what the parser throws; ``/MediaCore/MediaError/Code/truncated`` when the input ends
    ///   before `isDone` (parsers throw their own error first).
    func parse<Parser: AudioFileFormatParser>(
        with parser: inout Parser, pieceSize: Int, what: String,
        until isDone: (Parser, [AudioFileStreamEvent]) -> Bool
    ) throws(MediaError) {
        var window = ByteWindow()
        var events: [AudioFileStreamEvent] = []
        while true {
            try parser.parse(&window, into: &events)
            if isDone(parser, events) { return }
            if !events.isEmpty {
                events.removeAll(keepingCapacity: true)
                continue
            }
            if window.pendingSkip > 0 {
                let wanted = window.pendingSkip
                let skipped = try skip(wanted)
                window.reset(at: window.position - wanted + skipped)
                if skipped < wanted { window.finish() }
                continue
            }
            guard !window.isFinished else {
                // The parser throws at the end of the input before it is done; this keeps the loop finite.
                throw MediaError.truncated(what, needed: 1, available: 0, at: window.position)
            }
            let bytes = try read(upTo: pieceSize)
            if bytes.isEmpty { window.finish() } else { window.append(bytes) }
        }
    }
}
