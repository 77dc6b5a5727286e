import FuzzSupport
import MediaBitstream
import MediaCore
import MediaFormats

/// libFuzzer's entry point: ADTSHeader(parsing:) on the input, and ADTSParser fed it in pieces.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    _ = try? ADTSHeader(parsing: bytes)
    var parser = ADTSParser()
    fuzzPush(&parser, bytes)
    return 0
}
