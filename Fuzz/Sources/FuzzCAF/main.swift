import FuzzSupport

/// libFuzzer's entry point: CAFReader(bytes:) read to the end.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.caf.run(fuzzBytes(start, count))
    return 0
}
