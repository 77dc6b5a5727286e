// video-devices: the V4L2 cameras and what each captures (formats, sizes, frame rates), like
// AVCaptureDevice.DiscoverySession or v4l2-ctl's list of formats (see README.md).
import ExampleSupport

VideoDevices.runInHouseStyle("video-devices")
