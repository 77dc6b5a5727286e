/// The filters of a graph description as text (`"loudnorm=I=-16,aresample=48000"` → `loudnorm` with
/// `I=-16`, `aresample` with `48000`), for naming a filter in an error. FFmpeg parses the graph; this
/// reading only needs to find each filter's name and options: it honours `'…'` quoting and `\`
/// escapes, skips `[label]`s, and splits at `,` and `;`.
enum FilterChainText {
    /// One filter of a description: its name and its options' text (empty when it has none).
    struct Filter: Equatable {
        var name: String
        var options: String
        /// The filter as written: `name=options`, or `name`.
        var text: String { options.isEmpty ? name : "\(name)=\(options)" }
    }

    /// The filters of `description`, in order.
    static func filters(of description: String) -> [Filter] {
        var filters: [Filter] = []
        var current = ""
        var quoted = false
        var escaped = false
        var labelDepth = 0
        func close() {
            let text = current.trimmingPrefix(while: \.isWhitespace)
            current = ""
            guard !text.isEmpty else { return }
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].filter { !$0.isWhitespace }
            filters.append(Filter(name: String(name), options: parts.count > 1 ? String(parts[1]) : ""))
        }
        for character in description {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                current.append(character)
                escaped = true
            } else if character == "'" {
                current.append(character)
                quoted.toggle()
            } else if quoted {
                current.append(character)
            } else if character == "[" {
                labelDepth += 1
            } else if character == "]" {
                labelDepth = max(0, labelDepth - 1)
            } else if labelDepth > 0 {
                continue
            } else if character == "," || character == ";" {
                close()
            } else {
                current.append(character)
            }
        }
        close()
        return filters
    }

    /// "1st", "2nd", "3rd", "4th", …
    static func ordinal(_ number: Int) -> String {
        let suffix: String
        switch (number % 10, number % 100) {
        case (1, let tens) where tens != 11: suffix = "st"
        case (2, let tens) where tens != 12: suffix = "nd"
        case (3, let tens) where tens != 13: suffix = "rd"
        default: suffix = "th"
        }
        return "\(number)\(suffix)"
    }
}
