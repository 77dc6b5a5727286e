// h264-encoder: raw video (a .y4m or .yuv file, the test pattern) or an .h264 file → H.264 → Annex-B.
// The pipeline is the one Examples/h264-encoder/README.md shows in code (see H264Encoding.swift).
import ExampleSupport

H264EncoderCommand.runInHouseStyle("h264-encoder")
