import FuzzSupport
import MediaBitstream
import MediaCore
import MediaFormats

/// libFuzzer's entry point: AVCCParser and avccToAnnexB over the input after its first byte, which
/// chooses the length size (1, 2 or 4).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    let lengthSize = [1, 2, 4][Int(bytes.first ?? 0) % 3]
    let sample = Array(bytes.dropFirst())
    if var parser = try? AVCCParser(lengthSize: lengthSize) {
        _ = try? parser.all(in: sample)
    }
    _ = try? H264Bitstream.avccToAnnexB(sample, lengthSize: lengthSize)
    return 0
}
