import FuzzSupport

/// libFuzzer's entry point: AnnexBAccessUnitParser (which parses SPS, PPS and slice headers) fed the
/// input in pieces, and AnnexBReader(bytes:).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.annexBAccessUnits.run(fuzzBytes(start, count))
    return 0
}
