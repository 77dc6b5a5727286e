// transcode: any files libavformat reads → re-encode or --copy → a container or our own formats (see README.md).
import ExampleSupport

Transcode.runInHouseStyle("transcode")
