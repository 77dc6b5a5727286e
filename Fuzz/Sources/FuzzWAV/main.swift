import FuzzSupport
import MediaBitstream
import MediaCore
import MediaFormats

/// libFuzzer's entry point: WAVReader(bytes:) (RIFF, RF64) read to the end.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    if let reader = try? WAVReader(bytes: bytes, framesPerSample: 1 + Int(bytes.last ?? 0) * 16) {
        fuzzDrain(reader)
    }
    return 0
}
