// 100,000 frames through AAC and back, exactly: the encoder marks its priming and the last packet's
// padding as trims, the CAF muxer writes them as the packet table, the reader turns the packet table
// back into trims and the decoder drops them.
import MediaPipeline

// snippet.encode
let frames: Int64 = 100_000
let file = MemoryOutput()
var encode = Pipeline(
    source: try ToneGenerator(sampleRate: 48_000, channels: 2, length: .frames(frames)),
    stages: [try AACEncoder(bitRate: 128_000)],
    sink: CAFMuxer(output: file))
let written = try encode.run()
// snippet.end

// snippet.packetTable
let reader = try CAFReader(bytes: file.bytes)
if let pakt = reader.packetTable {
    print(pakt.numberPackets, pakt.primingFrames, pakt.remainderFrames, pakt.numberValidFrames)
    // 99 1024 352 100000: 99 × 1024 = 1024 + 100000 + 352
}
// snippet.end

// snippet.decode
var decode = Pipeline(source: reader, stages: [AudioDecoder()], sink: CollectingSink())
try decode.run()
let pcm = (decode.finishedSink as? CollectingSink)?.samples ?? []
print(pcm.reduce(0) { $0 + $1.frameCount })  // 100000
// snippet.end
print("\(written.samplesWritten) packets written")
