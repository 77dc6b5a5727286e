import MediaBitstream
import MediaCore

extension AnnexBScanner {
    /// Reads up to `count` bytes from `input` straight into the scanner's buffer, and returns how many
    /// (0 at the end of the input). Once the buffer has grown to its working size this allocates nothing.
    mutating func append(from input: ForwardInput, upTo count: Int) throws(MediaError) -> Int {
        try append(upTo: count, remaining: input.remaining) { (buffer) throws(MediaError) -> Int in
            try input.read(into: buffer)
        }
    }
}
