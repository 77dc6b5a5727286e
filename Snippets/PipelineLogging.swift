// One logger for a whole run: every source, stage and sink without a logger of its own reports its warnings
// to it, and the run's result counts them. Reads `cut.wav`, a WAV file cut short.
// snippet.logger
import Logging
import MediaPipeline

var logger = Logger(label: "transcoder")
logger.logLevel = .warning
var pipeline = Pipeline(
    source: try WAVReader(path: "cut.wav"), stages: [try AACEncoder(bitRate: 128_000)],
    sink: ADTSMuxer(output: try FileOutput(path: "out.aac")), logger: logger)
let progress = try pipeline.run()
print(progress.warningCount, progress.warnings.first?.description ?? "")
// 1 WAV 'data' chunk declares 960000 bytes … at byte offset 36.
//   (byteOffset=36, code=dataBeyondEndOfFile, stage=WAVReader)
// snippet.end
