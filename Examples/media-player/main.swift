// media-player: AVPlayer (and ffplay) as a command-line tool: a movie's video in a window and its audio
// on a PulseAudio device, the video following the audio heard (see README.md).
import ExampleSupport

MediaPlayerCommand.runInHouseStyle("media-player")
