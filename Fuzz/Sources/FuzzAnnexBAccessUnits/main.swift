import FuzzSupport
import MediaBitstream
import MediaCore
import MediaFormats

/// libFuzzer's entry point: AnnexBAccessUnitParser (which parses SPS, PPS and slice headers) fed the
/// input in pieces, and AnnexBReader(bytes:).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    var parser = AnnexBAccessUnitParser()
    fuzzPush(&parser, bytes)
    fuzzDrain(AnnexBReader(bytes: bytes, readSize: 1 + Int(bytes.first ?? 0)))
    return 0
}
