// caf-info: what a Core Audio Format file holds, like Apple's `afinfo`: its chunks, the `desc`
// fields, the magic cookie, the packet table and the duration. `--json` prints one JSON object.
#if canImport(Glibc)
import Glibc
#endif
import ExampleSupport
import MediaPipeline

let usage = """
    usage: caf-info FILE.caf [--json]

    Prints the chunks of a CAF file in order (type, offset, size), the desc fields, the magic cookie
    (hex), the packet count, the valid, priming and remainder frames and the duration. --json prints
    the same as one JSON object on standard output.
    --licence prints which FFmpeg libraries and codecs this binary uses, their licences and what
    that means for distributing it, and exits.
    """

/// What the file says, gathered once for both outputs.
struct Info {
    var path: String
    var description: CAFAudioDescription
    var chunks: [(type: String, offset: Int64, size: Int64)]
    var cookie: [UInt8]
    var packets: Int64
    var validFrames: Int64
    var primingFrames: Int64
    var remainderFrames: Int64
    var dataOffset: Int64
    var dataSize: Int64
    var info: [(String, String)]

    init(path: String, reader: CAFReader) {
        self.path = path
        description = reader.description
        chunks = reader.chunks
        cookie = reader.magicCookie
        packets = reader.packetCount
        dataOffset = reader.dataOffset
        dataSize = reader.dataSize
        info = reader.info
        if let table = reader.packetTable {
            validFrames = table.numberValidFrames
            primingFrames = Int64(table.primingFrames)
            remainderFrames = Int64(table.remainderFrames)
        } else {
            validFrames = reader.totalFrames
            primingFrames = 0
            remainderFrames = 0
        }
    }

    var formatID: String { CAFFile.fourCCString(description.formatID) }
    var seconds: Double { description.sampleRate > 0 ? Double(validFrames) / description.sampleRate : 0 }
}

/// Lowercase hex of `bytes`, optionally with a space between bytes.
func hex(_ bytes: [UInt8], separator: String = "") -> String {
    let digits = Array("0123456789abcdef")
    return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined(separator: separator)
}

/// `text` as a JSON string literal.
func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 {
                let h = hex([UInt8(scalar.value)])
                out += "\\u00" + h
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}

/// A Double as JSON (integers without a fraction; JSON has no NaN or infinity).
func jsonNumber(_ value: Double) -> String {
    guard value.isFinite else { return "null" }
    if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}

func printJSON(_ i: Info) {
    let d = i.description
    var fields: [(String, String)] = [
        ("file", jsonString(i.path)),
        ("formatID", jsonString(i.formatID)),
        ("formatFlags", String(d.formatFlags)),
        ("sampleRate", jsonNumber(d.sampleRate)),
        ("channels", String(d.channelsPerFrame)),
        ("bitsPerChannel", String(d.bitsPerChannel)),
        ("framesPerPacket", String(d.framesPerPacket)),
        ("bytesPerPacket", String(d.bytesPerPacket)),
        ("packets", String(i.packets)),
        ("validFrames", String(i.validFrames)),
        ("primingFrames", String(i.primingFrames)),
        ("remainderFrames", String(i.remainderFrames)),
        ("duration", jsonNumber(i.seconds)),
        ("dataOffset", String(i.dataOffset)),
        ("dataSize", String(i.dataSize)),
        ("cookie", jsonString(hex(i.cookie))),
    ]
    let chunks = i.chunks.map { "{\"type\":\(jsonString($0.type)),\"offset\":\($0.offset),\"size\":\($0.size)}" }
    fields.append(("chunks", "[" + chunks.joined(separator: ",") + "]"))
    let info = i.info.map { "\(jsonString($0.0)):\(jsonString($0.1))" }
    fields.append(("info", "{" + info.joined(separator: ",") + "}"))
    print("{" + fields.map { "\(jsonString($0.0)):\($0.1)" }.joined(separator: ",") + "}")
}

func printText(_ i: Info) {
    let d = i.description
    print("File:           \(i.path)")
    print("File type ID:   caff")
    print("Chunks:")
    for chunk in i.chunks {
        let size = chunk.size == -1 ? "-1 (to end of file)" : String(chunk.size)
        print("    '\(chunk.type)'  offset \(chunk.offset)  size \(size)")
    }
    print("Data format (desc):")
    print("    mSampleRate        \(d.sampleRate)")
    print("    mFormatID          '\(i.formatID)'")
    print("    mFormatFlags       0x\(String(d.formatFlags, radix: 16))")
    print("    mBytesPerPacket    \(d.bytesPerPacket)")
    print("    mFramesPerPacket   \(d.framesPerPacket)")
    print("    mChannelsPerFrame  \(d.channelsPerFrame)")
    print("    mBitsPerChannel    \(d.bitsPerChannel)")
    print("Magic cookie:   \(i.cookie.isEmpty ? "none" : "\(count: i.cookie.count, "byte"): " + hex(i.cookie, separator: " "))")
    for (key, value) in i.info { print("Info:           \(key) = \(value)") }
    print("Audio data:     \(count: i.dataSize, "byte") from offset \(i.dataOffset)")
    print("Packets:        \(i.packets)")
    print("Valid frames:   \(i.validFrames)")
    print("Priming frames: \(i.primingFrames)")
    print("Remainder:      \(i.remainderFrames)")
    print("Duration:       \(i.seconds) s")
}

func run() -> Int32 {
    exitIfLicenceRequested()
    var path: String?
    var json = false
    for argument in CommandLine.arguments.dropFirst() {
        switch argument {
        case "--json": json = true
        case "--help", "-h":
            print(usage)
            return 0
        default:
            if argument.hasPrefix("-") && argument != "-" {
                printError("caf-info: unknown option '\(argument)' (see --help)")
                return 2
            }
            if path != nil {
                printError("caf-info: give one file (see --help)")
                return 2
            }
            path = argument
        }
    }
    guard let path else {
        printError("caf-info: no file given (see --help)")
        return 2
    }
    let reader: CAFReader
    do {
        reader = try CAFReader(path: path)
    } catch {
        printError("caf-info: \(error)")
        return 1
    }
    let info = Info(path: path, reader: reader)
    if json { printJSON(info) } else { printText(info) }
    return 0
}

exit(run())
