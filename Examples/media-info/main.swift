// media-info: what an audio file holds, like Apple's `afinfo`, for WAVE, AIFF, AIFC, CAF, NeXT, ADTS and MP3 (see README.md).
import ExampleSupport

MediaInfo.runInHouseStyle("media-info")
