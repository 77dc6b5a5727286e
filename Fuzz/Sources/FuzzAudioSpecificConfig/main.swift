import FuzzSupport
import MediaBitstream
import MediaCore
import MediaFormats

/// libFuzzer's entry point: AudioSpecificConfig(parsing:), and the ADTS header it would be carried in.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    if let config = try? AudioSpecificConfig(parsing: bytes) {
        _ = config.description
        _ = try? ADTSHeader(audioSpecificConfig: config, payloadLength: bytes.count)
    }
    return 0
}
