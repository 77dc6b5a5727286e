// audio-convert: any audio file MediaPipeline reads → PCM or AAC in the container its extension names, like afconvert (see README.md).
import ExampleSupport

AudioConvert.runInHouseStyle("audio-convert")
