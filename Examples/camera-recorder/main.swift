// camera-recorder: a camera (V4L2) or an X11 screen, with a PulseAudio input if asked, → H.264/AAC →
// a file in any container, like an AVCaptureSession with an AVCaptureMovieFileOutput (see README.md).
import ExampleSupport

CameraRecorder.runInHouseStyle("camera-recorder", arguments: CaptureOption.normalizing(CommandLine.arguments))
