import FuzzSupport
import MediaBitstream
import MediaCore
import MediaFormats

/// libFuzzer's entry point: Y4MStreamHeader on the first line, Y4MParser fed the input in pieces,
/// and Y4MReader(bytes:).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    if let newline = bytes.firstIndex(of: 0x0A) {
        _ = try? Y4MStreamHeader(parsing: bytes[..<newline])
    }
    var parser = Y4MParser()
    fuzzPush(&parser, bytes)
    if let reader = try? Y4MReader(bytes: bytes) {
        fuzzDrain(reader)
    }
    return 0
}
