// audio-player: AVAudioPlayer as a command-line tool: plays any file the library reads to a PulseAudio
// device, with volume, pan, rate, loops, a position line and a level bar (see README.md).
import ExampleSupport

AudioPlayerCommand.runInHouseStyle("audio-player")
