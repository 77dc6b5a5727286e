import FuzzSupport

/// libFuzzer's entry point: AudioFileStreamParser with the type hint `.next`, fed the input in pieces.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.auStream.run(fuzzBytes(start, count))
    return 0
}
