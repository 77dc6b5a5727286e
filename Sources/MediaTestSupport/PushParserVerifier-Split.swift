import MediaFormats

extension PushParserVerifier {
    /// How the input is cut into the pieces pushed one after the other.
    public enum Split: Sendable, Hashable, CustomStringConvertible {
        /// One push of everything.
        case whole
        /// One push per byte.
        case byteByByte
        /// Pieces of random length from a `SplitMix64` of `seed`: log-uniform from 1 byte to
        /// 64 KiB, so that both tiny and large pieces occur, with an empty push now and then.
        case random(seed: UInt64)

        /// `whole`, `byte by byte` or `random(seed: 3)`.
        public var description: String {
            switch self {
            case .whole: "whole"
            case .byteByByte: "byte by byte"
            case .random(let seed): "random(seed: \(seed))"
            }
        }

        /// The ranges of the pieces of an input of `count` bytes, in order; together they cover it.
        public func pieces(count: Int) -> [Range<Int>] {
            switch self {
            case .whole:
                return [0..<count]
            case .byteByByte:
                return (0..<count).map { $0..<$0 + 1 }
            case .random(let seed):
                var generator = SplitMix64(seed: seed)
                var pieces: [Range<Int>] = []
                var start = 0
                while start < count {
                    let size =
                        generator.next() % 16 == 0 ? 0 : 1 + Int(generator.next() % (1 << (generator.next() % 17)))
                    let end = min(count, start + size)
                    pieces.append(start..<end)
                    start = end
                }
                return pieces
            }
        }
    }
}
