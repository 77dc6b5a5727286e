import FuzzSupport

/// libFuzzer's entry point: AVCCParser and avccToAnnexB over the input after its first byte, which
/// chooses the length size (1, 2 or 4).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.avcc.run(fuzzBytes(start, count))
    return 0
}
