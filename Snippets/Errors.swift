// What a failure and a worked-around irregularity look like: a CAF file cut short throws
// `MediaError` with code `.truncated`; a WAV file cut short is read to its end, with a diagnostic.
import MediaPipeline

// snippet.hide
// One second of 48 kHz stereo s16 as a WAV file and as an AAC CAF file, in memory.
let wavOutput = MemoryOutput()
var wavPipeline = Pipeline(
    source: try ToneGenerator(sampleType: .s16, length: .frames(48_000)), sink: WAVMuxer(output: wavOutput))
try wavPipeline.run()
let cafOutput = MemoryOutput()
var cafPipeline = Pipeline(
    source: try ToneGenerator(length: .frames(48_000)), stages: [try AACEncoder()], sink: CAFMuxer(output: cafOutput))
try cafPipeline.run()
// Each file cut after 4,044 bytes, as a download or a copy that stopped.
let cutCAF = Array(cafOutput.bytes.prefix(4_044))
let cutWAV = Array(wavOutput.bytes.prefix(4_044))
// snippet.show

// snippet.error
do {
    var pipeline = Pipeline(source: try CAFReader(bytes: cutCAF), stages: [AudioDecoder()], sink: CollectingSink())
    try pipeline.run()
} catch let error as MediaError where error.code == .truncated {
    print(error)  // "CAF 'data' chunk needs 16392 bytes but only 3929 remain at byte offset 103."
}
// snippet.end

// snippet.diagnostics
let reader = try WAVReader(bytes: cutWAV)
var frames = 0
while let sample = try reader.next() { frames += sample.frameCount }
print(frames)  // 1000: every whole frame the file holds
for diagnostic in reader.diagnostics where diagnostic.code == .dataBeyondEndOfFile {
    // "WAV 'data' chunk declares 192000 bytes but the file holds 4000 after its header; reading those at byte offset 36."
    print(diagnostic)
}
// snippet.end
