/// SplitMix64 (Steele, Lea and Flood, 2014; the seeding generator of `java.util.SplittableRandom` and of
/// the xoshiro family): a tiny, fast 64-bit generator whose output depends only on the seed, on every
/// platform and in every Swift version, unlike `SystemRandomNumberGenerator`.
package struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    package init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in [-1, 1): the top 53 bits as a fraction, scaled.
    package mutating func nextSigned() -> Double {
        Double(next() >> 11) * 0x1p-52 - 1
    }
}
