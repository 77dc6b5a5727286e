import FuzzSupport
import MediaBitstream
import MediaCore
import MediaFormats

/// libFuzzer's entry point: H264NALHeader, H264SPS and H264PPS parsing the input as one NAL unit,
/// and H264Bitstream.parameterSets.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    _ = try? H264NALHeader(parsing: bytes)
    _ = try? H264SPS(parsing: bytes)
    _ = try? H264PPS(parsing: bytes)
    _ = H264RBSP.removeEmulationPrevention(bytes)
    _ = H264Bitstream.parameterSets(in: [bytes])
    return 0
}
