// live-streamer: video and audio → H.264 + AAC → RTMP/SRT/UDP/TCP/HLS in real time (see README.md).
import ExampleSupport

LiveStreamer.runInHouseStyle("live-streamer", arguments: CaptureOption.normalizing(CommandLine.arguments))
