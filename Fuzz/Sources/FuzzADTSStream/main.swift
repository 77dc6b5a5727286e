import FuzzSupport

/// libFuzzer's entry point: AudioFileStreamParser with the type hint `.adts`, fed the input in pieces.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.adtsStream.run(fuzzBytes(start, count))
    return 0
}
