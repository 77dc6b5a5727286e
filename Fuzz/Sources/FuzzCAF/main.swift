import FuzzSupport
import MediaBitstream
import MediaCore
import MediaFormats

/// libFuzzer's entry point: CAFReader(bytes:) read to the end.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    if let reader = try? CAFReader(bytes: bytes, framesPerSample: 1 + Int(bytes.last ?? 0) * 16) {
        fuzzDrain(reader)
    }
    return 0
}
