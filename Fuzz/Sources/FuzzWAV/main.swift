import FuzzSupport

/// libFuzzer's entry point: WAVReader(bytes:) (RIFF, RF64) read to the end.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.wav.run(fuzzBytes(start, count))
    return 0
}
