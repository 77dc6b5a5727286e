import FuzzSupport

/// libFuzzer's entry point: AVCDecoderConfigurationRecord(parsing:) (avcC).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.avcDecoderConfigurationRecord.run(fuzzBytes(start, count))
    return 0
}
