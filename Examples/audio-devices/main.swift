// audio-devices: the inputs and outputs of a PulseAudio server, and (`--watch`) one line per device
// event until Ctrl-C (see README.md).
import ExampleSupport

AudioDevicesCommand.runInHouseStyle("audio-devices")
