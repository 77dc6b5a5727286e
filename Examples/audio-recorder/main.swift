// audio-recorder: AVAudioRecorder as a command-line tool: records a PulseAudio device (or a generated
// tone) to CAF, M4A, ADTS, WAV or AIFF until a duration or Ctrl-C (see README.md).
import ExampleSupport

AudioRecorderCommand.runInHouseStyle("audio-recorder")
