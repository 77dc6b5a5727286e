import FuzzSupport
import MediaBitstream
import MediaCore
import MediaFormats

/// libFuzzer's entry point: AnnexBScanner fed the input in pieces, AnnexBScanner.split and the conversions to AVCC.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    var scanner = AnnexBScanner()
    fuzzPush(&scanner, bytes)
    _ = try? AnnexBScanner.split(bytes)
    _ = H264Bitstream.annexBNALUnits(bytes)
    _ = try? H264Bitstream.annexBToAVCC(bytes)
    return 0
}
