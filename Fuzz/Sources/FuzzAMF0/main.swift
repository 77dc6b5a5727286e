import FuzzSupport

/// libFuzzer's entry point: AMF0Value.decodeAll with tight limits, and what it decoded encoded and
/// decoded again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.amf0.run(fuzzBytes(start, count))
    return 0
}
