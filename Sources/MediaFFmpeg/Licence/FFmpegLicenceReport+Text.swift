// The report as text (what `--licence` prints), as JSON (`--licence --json`), and the plain-language
// paragraph on distribution.

extension FFmpegLicenceReport {
    /// The line tests and scripts look for: `Effective licence of this binary: <licence>`.
    public var effectiveLicenceLine: String { "Effective licence of this binary: \(binaryLicence)" }

    /// What the licences mean for distributing a binary built against this FFmpeg, in plain words.
    /// Not legal advice.
    public var distributionNotes: String {
        switch ffmpegLicence {
        case .gpl2OrLater, .gpl3OrLater:
            """
            This FFmpeg is built with --enable-gpl (libx264 and other GPL parts are in it), so a binary \
            that links it is a work under the GPL when you distribute it. Distribute it with the GPL's \
            text and its complete corresponding source (your code, MediaPipeline and FFmpeg, with the build \
            scripts), or a written offer of that source valid for three years; your own code must be under \
            a GPL-compatible licence and is then distributed under the GPL's terms. MediaPipeline's \
            Apache-2.0 is compatible with GPL version 3 but not version 2, so the combination is GPL v3 \
            (FFmpeg's "v2 or later" allows that). Using it privately or on your own server is not \
            distribution. To ship a closed-source binary, build against an FFmpeg configured without \
            --enable-gpl (no libx264: pass another encoderName to H264Encoder, e.g. libopenh264 or a \
            hardware encoder).
            """
        case .lgpl21OrLater, .lgpl3OrLater:
            """
            This FFmpeg is LGPL: link it dynamically (as SwiftPM does with the system's shared libraries), \
            say that the binary uses FFmpeg under the LGPL, ship the LGPL's text and FFmpeg's source (or \
            an offer of it), and let users replace the FFmpeg libraries with their own builds (no static \
            linking without also providing object files to relink; no terms forbidding reverse \
            engineering for debugging such changes). Your own code and MediaPipeline's (Apache-2.0) keep \
            their licences.
            """
        case .nonfree:
            """
            This FFmpeg is built with --enable-nonfree: it contains libraries whose licences are \
            incompatible with FFmpeg's (GPL or LGPL), so neither it nor a binary that links it may be \
            redistributed. Use it only where you built it; rebuild FFmpeg without --enable-nonfree to ship.
            """
        }
    }

    /// The report as `--licence` prints it.
    public var description: String {
        var lines = ["MediaPipeline licence report", "", "MediaPipeline: \(Self.projectLicence) (see LICENSE)"]
        lines.append("FFmpeg as built here: \(ffmpegLicence.rawValue)")
        lines.append(
            "  configure: --enable-gpl \(flags.gpl ? "yes" : "no"), --enable-version3 \(flags.version3 ? "yes" : "no"), "
                + "--enable-nonfree \(flags.nonfree ? "yes" : "no")")
        lines.append("")
        lines.append("Libraries:")
        for library in libraries {
            lines.append("  lib\(library.name) \(library.version): \(library.licence)")
        }
        lines.append("")
        lines.append("Codecs MediaPipeline opens:")
        for codec in codecs {
            let found = codec.name.map { "\($0): \(codec.licence)" } ?? "not in this build"
            lines.append("  \(codec.role.rawValue) \(found) — \(codec.purpose)")
        }
        lines.append("")
        lines.append(effectiveLicenceLine)
        lines.append("")
        lines.append(Self.wrap(distributionNotes, width: 100))
        return lines.joined(separator: "\n")
    }

    /// The report as one JSON object (`--licence --json`): `projectLicence`, `ffmpegLicence`,
    /// `binaryLicence`, `flags`, `libraries`, `codecs` and `distributionNotes`.
    public var json: String {
        func string(_ text: String?) -> String { text.map(Self.jsonString) ?? "null" }
        let libraryObjects = libraries.map {
            "{\"name\":\(string($0.name)),\"version\":\(string($0.version)),\"licence\":\(string($0.licence)),"
                + "\"configuration\":\(string($0.configuration))}"
        }
        let codecObjects = codecs.map {
            "{\"role\":\(string($0.role.rawValue)),\"purpose\":\(string($0.purpose)),\"name\":\(string($0.name)),"
                + "\"externalLibrary\":\(string($0.externalLibrary)),\"licence\":\(string($0.licence))}"
        }
        return "{\"projectLicence\":\(string(Self.projectLicence)),\"ffmpegLicence\":\(string(ffmpegLicence.rawValue)),"
            + "\"binaryLicence\":\(string(binaryLicence)),"
            + "\"flags\":{\"gpl\":\(flags.gpl),\"version3\":\(flags.version3),\"nonfree\":\(flags.nonfree)},"
            + "\"libraries\":[\(libraryObjects.joined(separator: ","))],\"codecs\":[\(codecObjects.joined(separator: ","))],"
            + "\"distributionNotes\":\(string(distributionNotes))}"
    }

    /// `text` as a JSON string literal.
    private static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// `text` broken into lines of at most `width` characters at spaces.
    private static func wrap(_ text: String, width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? String(word) : " " + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}
