import FuzzSupport

/// libFuzzer's entry point: ADTSReader(bytes:) read to the end.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.adtsReader.run(fuzzBytes(start, count))
    return 0
}
