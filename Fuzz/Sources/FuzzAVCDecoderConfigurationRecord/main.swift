import FuzzSupport
import MediaBitstream
import MediaCore
import MediaFormats

/// libFuzzer's entry point: AVCDecoderConfigurationRecord(parsing:) (avcC).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    _ = try? AVCDecoderConfigurationRecord(parsing: bytes)
    return 0
}
