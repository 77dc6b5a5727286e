import FuzzSupport

/// libFuzzer's entry point: AudioFileStreamParser sniffing the type, fed the input in pieces.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.sniffedStream.run(fuzzBytes(start, count))
    return 0
}
