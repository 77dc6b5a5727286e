import FuzzSupport

/// libFuzzer's entry point: RTMPChunkParser fed the input in pieces, each command and data message
/// decoded as AMF0 and each audio and video message read by FLVSampleReader.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.rtmpChunks.run(fuzzBytes(start, count))
    return 0
}
