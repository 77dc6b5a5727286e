import FuzzSupport

/// libFuzzer's entry point: AudioFileStreamParser with the type hint `.mp3`, fed the input in pieces.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.mp3Stream.run(fuzzBytes(start, count))
    return 0
}
