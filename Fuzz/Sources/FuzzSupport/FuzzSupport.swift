public import MediaCore
public import MediaFormats

/// The input of one fuzzer run, as a Swift array.
public func fuzzBytes(_ start: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let start, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: start, count: count))
}

/// Split points for feeding `bytes` to a push parser in pieces: piece sizes drawn from a small
/// generator seeded by the input's first byte and its length, so that the fuzzer, by mutating that byte,
/// chooses how the stream is cut (1-byte pieces when the byte is 1, whole when it is 0). Every byte of
/// the input is still parsed, so that seed files stay valid streams.
public func fuzzPieces(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    guard let first = bytes.first, first != 0 else { return [bytes[...]] }
    var state = UInt64(first) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
    let largest = Int(first)
    var pieces: [ArraySlice<UInt8>] = []
    var start = 0
    while start < bytes.count {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        let size = 1 + Int(state % UInt64(largest))
        let end = min(bytes.count, start + size)
        pieces.append(bytes[start..<end])
        start = end
    }
    return pieces
}

/// Feeds `bytes` to `parser` in the pieces ``fuzzPieces(_:)`` chooses, takes every output after each
/// piece and after `finish()`, and stops at the first error (what a user does).
public func fuzzPush<Parser: PushParser>(
    _ parser: inout Parser, _ bytes: [UInt8], each: (Parser.Output) -> Void = { _ in }
) {
    do throws(MediaError) {
        for piece in fuzzPieces(bytes) {
            parser.push(piece)
            while let output = try parser.next() { each(output) }
        }
        parser.finish()
        while let output = try parser.next() { each(output) }
    } catch {}
}

/// Reads every sample from a source, stopping at the first error.
public func fuzzDrain(_ source: some MediaSource) {
    var source = source
    do {
        while try source.next() != nil {}
    } catch {}
}

/// Parses an audio file stream in the pieces ``fuzzPieces(_:)`` chooses, with the given type hint.
public func fuzzAudioFileStream(_ bytes: [UInt8], hint: AudioFileType?) {
    var parser = AudioFileStreamParser(fileTypeHint: hint)
    fuzzPush(&parser, bytes)
}
