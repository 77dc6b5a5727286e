// A stage of one's own: inverts the polarity of interleaved 32-bit float PCM, refusing anything else.
import MediaPipeline

// snippet.stage
/// Multiplies every sample value by -1. Takes interleaved f32 PCM; anything else throws `.formatMismatch`.
struct PolarityInverter: MediaStage {
    mutating func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        guard let audio = sample.format.audio, audio.pcm == .f32 else {
            throw MediaError.formatMismatch(stage: name, expected: "interleaved f32 PCM", actual: sample.format)
        }
        var output = sample  // shares the bytes until written: copy-on-write
        output.withUnsafeMutableBytes { bytes in
            for offset in stride(from: 0, to: bytes.count, by: MemoryLayout<Float>.size) {
                let value = bytes.loadUnaligned(fromByteOffset: offset, as: Float.self)
                bytes.storeBytes(of: -value, toByteOffset: offset, as: Float.self)
            }
        }
        try emit(output)  // one in, one out; a stage may also emit none (it needs more) or several
    }

    mutating func finish(into emit: (MediaSample) throws -> Void) throws {
        // Nothing held back. An encoder or resampler emits its delayed output here.
    }
}
// snippet.end

// snippet.use
var pipeline = Pipeline(
    source: try ToneGenerator(length: .frames(48_000)),
    stages: [PolarityInverter()],
    sink: CollectingSink())
try pipeline.run()

// The same stage given s16 fails, named and located by the pipeline:
var wrong = Pipeline(
    source: try ToneGenerator(sampleType: .s16, length: .frames(48_000)),
    stages: [PolarityInverter()],
    sink: CollectingSink())
do { try wrong.run() } catch let error as MediaError {
    // "PolarityInverter takes interleaved f32 PCM but was given s16 48000 Hz stereo (sample 0) in stage PolarityInverter."
    print(error)
}
// snippet.end
