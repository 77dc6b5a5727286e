// av-mixer: audio inputs mixed, video inputs composited, text drawn → WAV/Y4M or encoded files and streams (see README.md).
import ExampleSupport

AVMixer.runInHouseStyle("av-mixer")
