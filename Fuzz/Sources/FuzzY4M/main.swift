import FuzzSupport

/// libFuzzer's entry point: Y4MStreamHeader on the first line, Y4MParser fed the input in pieces,
/// and Y4MReader(bytes:).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.y4m.run(fuzzBytes(start, count))
    return 0
}
