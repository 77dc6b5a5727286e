import ArgumentParser

/// One `--audio SPEC` or `--video SPEC`: where the input comes from, then options after commas.
///
/// `SPEC` is a path, `tone:HZ`, `pattern`, `pulse:DEVICE` or `image:PATH`; options are `key=value`
/// (audio: `gain=G` linear, `pan=P` −1…1, `offset=S` seconds; video: `x=`, `y=`, `w=`, `h=`, `z=`,
/// `alpha=`, `offset=`).
struct InputSpec: ExpressibleByArgument, Sendable, Hashable {
    /// Where the input comes from.
    enum Origin: Sendable, Hashable {
        case file(String)
        case tone(Double)
        case pattern
        case pulse(String)
        case image(String)
    }

    var origin: Origin
    var options: [String: Double] = [:]
    /// The text as given, for messages.
    let text: String

    init?(argument: String) {
        guard let parsed = try? Self.parse(argument) else { return nil }
        self = parsed
    }

    /// Parses `argument`, throwing a message that says what was wrong.
    static func parse(_ argument: String) throws -> InputSpec {
        var parts = argument.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let head = parts.removeFirst()
        let origin: Origin
        if head == "pattern" {
            origin = .pattern
        } else if head.hasPrefix("tone:") {
            guard let hertz = Double(head.dropFirst(5)), hertz > 0, hertz < 24_000 else {
                throw ValidationError("'\(head)': a tone is tone:HZ with 0 < HZ < 24000")
            }
            origin = .tone(hertz)
        } else if head.hasPrefix("pulse:") {
            origin = .pulse(String(head.dropFirst(6)))
        } else if head.hasPrefix("image:") {
            origin = .image(String(head.dropFirst(6)))
        } else if !head.isEmpty {
            origin = .file(head)
        } else {
            throw ValidationError("'\(argument)' names no input (a path, tone:HZ, pattern, pulse:DEVICE or image:PATH)")
        }
        var options: [String: Double] = [:]
        for part in parts {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, let value = Double(pair[1]), value.isFinite else {
                throw ValidationError("'\(part)' in '\(argument)' is not key=NUMBER")
            }
            options[pair[0]] = value
        }
        return InputSpec(origin: origin, options: options, text: argument)
    }

    private init(origin: Origin, options: [String: Double], text: String) {
        self.origin = origin
        self.options = options
        self.text = text
    }

    /// Refuses keys that the kind of input does not take, and values out of range.
    func validate(keys: Set<String>, kind: String) throws {
        for key in options.keys where !keys.contains(key) {
            throw ValidationError(
                "--\(kind) '\(text)': unknown option '\(key)' (takes \(keys.sorted().joined(separator: ", ")))")
        }
        if let gain = options["gain"], !(0...16).contains(gain) {
            throw ValidationError("--\(kind) '\(text)': gain must be 0...16 (linear)")
        }
        if let pan = options["pan"], !(-1...1).contains(pan) {
            throw ValidationError("--\(kind) '\(text)': pan must be -1...1")
        }
        if let alpha = options["alpha"], !(0...1).contains(alpha) {
            throw ValidationError("--\(kind) '\(text)': alpha must be 0...1")
        }
        if let offset = options["offset"], !(0...86_400).contains(offset) {
            throw ValidationError("--\(kind) '\(text)': offset must be 0...86400 seconds")
        }
        for key in ["w", "h"] {
            if let size = options[key], !(2...16_384).contains(size) {
                throw ValidationError("--\(kind) '\(text)': \(key) must be 2...16384 pixels")
            }
        }
    }

    /// An integer option.
    func int(_ key: String) -> Int? { options[key].map { Int($0.rounded()) } }
}

/// `--text 'STRING,x=X,y=Y,size=PX'`: the string (commas inside it as `\,`), then its options.
struct TextSpec: ExpressibleByArgument, Sendable, Hashable {
    var string: String
    var x = 16
    var y = 16
    var size = 32

    init?(argument: String) {
        guard let parsed = try? Self.parse(argument) else { return nil }
        self = parsed
    }

    static func parse(_ argument: String) throws -> TextSpec {
        // Split at commas not escaped with a backslash.
        var parts: [String] = [""]
        var escaped = false
        for character in argument {
            if escaped {
                parts[parts.count - 1].append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                parts.append("")
            } else {
                parts[parts.count - 1].append(character)
            }
        }
        var spec = TextSpec(string: parts.removeFirst())
        for part in parts {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, let value = Int(pair[1]) else {
                throw ValidationError("'\(part)' in --text '\(argument)' is not x=, y= or size= with a whole number")
            }
            switch pair[0] {
            case "x": spec.x = value
            case "y": spec.y = value
            case "size":
                guard (4...1000).contains(value) else { throw ValidationError("--text size must be 4...1000 pixels") }
                spec.size = value
            default: throw ValidationError("--text '\(argument)': unknown option '\(pair[0])' (takes x, y, size)")
            }
        }
        return spec
    }

    private init(string: String) { self.string = string }
}

/// `--canvas WxH@FPS`.
struct CanvasSpec: ExpressibleByArgument, Sendable, Hashable {
    var width: Int
    var height: Int
    var fps: Int

    init?(argument: String) {
        let halves = argument.split(separator: "@")
        let size = halves.first?.split(separator: "x") ?? []
        guard halves.count <= 2, size.count == 2, let width = Int(size[0]), let height = Int(size[1]),
            (16...8192).contains(width), (16...8192).contains(height), width % 2 == 0, height % 2 == 0
        else { return nil }
        let fps = halves.count == 2 ? Int(halves[1]) : 30
        guard let fps, (1...240).contains(fps) else { return nil }
        (self.width, self.height, self.fps) = (width, height, fps)
    }

    var defaultValueDescription: String { "\(width)x\(height)@\(fps)" }
}
