// av-encoder: video and audio → H.264 + AAC → MP4/MOV/M4A/MPEG-TS/FLV/Matroska (see README.md).
import ExampleSupport

AVEncoder.runInHouseStyle("av-encoder")
