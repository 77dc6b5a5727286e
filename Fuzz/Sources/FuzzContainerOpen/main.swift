import FuzzSupport

/// libFuzzer's entry point: ContainerDemuxer(bytes:) opened (or its failure explained) and read to the end.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.containerOpen.run(fuzzBytes(start, count))
    return 0
}
