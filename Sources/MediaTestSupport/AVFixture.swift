/// Audio-and-video files made by the ffmpeg CLI, for the tests that read, remux or transcode them.
public enum AVFixture {
    /// Makes an MP4 at `path` with the ffmpeg CLI: `seconds` s of testsrc2 320x240 at 25 fps (x264, a
    /// keyframe every second) and of a 440 Hz sine at 44.1 kHz (AAC).
    public static func makeMP4(_ path: String, seconds: Int) throws {
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i",
                "sine=frequency=440", "-t", "\(seconds)", "-c:v", "libx264", "-g", "25", "-c:a", "aac", path
            ])
    }
}

extension ExternalTool {
    /// `size,pts,dts,flags,data_hash` of every packet of the stream `specifier` selects (`a:0`, `v:0`), as
    /// ffprobe reads them: two files whose lists are equal hold the same packets at the same times.
    public static func packetFingerprints(_ path: String, stream specifier: String) throws -> [String] {
        try check(
            "ffprobe",
            [
                "-v", "error", "-select_streams", specifier, "-show_data_hash", "md5",
                "-show_entries", "packet=size,pts,dts,flags,data_hash", "-of", "csv=p=0", path
            ]
        ).output.split(separator: "\n").map(String.init)
    }
}
