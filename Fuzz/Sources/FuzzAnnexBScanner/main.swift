import FuzzSupport

/// libFuzzer's entry point: AnnexBScanner fed the input in pieces, AnnexBScanner.split and the conversions to AVCC.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.annexBScanner.run(fuzzBytes(start, count))
    return 0
}
