import FuzzSupport

/// libFuzzer's entry point: H264NALHeader, H264SPS and H264PPS parsing the input as one NAL unit,
/// and H264Bitstream.parameterSets.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.h264ParameterSets.run(fuzzBytes(start, count))
    return 0
}
