extension DefaultStringInterpolation {
    /// Appends `count` followed by `noun`, in the singular when the count is exactly 1 and in the plural
    /// otherwise (0, 2, -1, …): the one way the library writes a number of things into a message.
    ///
    /// ```swift
    /// "skipped \(count: 1, "byte")"                      // "skipped 1 byte"
    /// "skipped \(count: 12, "byte")"                     // "skipped 12 bytes"
    /// "\(count: 3, "entry", plural: "entries") found"    // "3 entries found"
    /// ```
    ///
    /// - Parameters:
    ///   - count: how many.
    ///   - noun: the singular, e.g. `byte`.
    ///   - plural: the plural when it is not `noun` + `s`.
    public mutating func appendInterpolation<Count: BinaryInteger>(
        count: Count, _ noun: String, plural: String? = nil
    ) {
        appendInterpolation(count)
        appendLiteral(" ")
        appendLiteral(count == 1 ? noun : plural ?? noun + "s")
    }
}
