import FuzzSupport

/// libFuzzer's entry point: ADTSHeader(parsing:) on the input, and ADTSParser fed it in pieces.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.adts.run(fuzzBytes(start, count))
    return 0
}
