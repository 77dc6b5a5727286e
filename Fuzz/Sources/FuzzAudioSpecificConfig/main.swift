import FuzzSupport

/// libFuzzer's entry point: AudioSpecificConfig(parsing:), and the ADTS header it would be carried in.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.audioSpecificConfig.run(fuzzBytes(start, count))
    return 0
}
