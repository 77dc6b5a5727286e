/// Audio-and-video files made by the ffmpeg CLI, for the tests that read, remux or transcode them.
public enum AVFixture {
    /// Makes an MP4 at `path` with the ffmpeg CLI: `seconds` s of testsrc2 320x240 at 25 fps (x264, a
    /// keyframe every second) and of a 440 Hz sine at 44.1 kHz (AAC). Made once per length and copied
    /// (``GeneratedFixture``): the suites that run beside the real-time ones encode no more than they must.
    public static func makeMP4(_ path: String, seconds: Int) throws {
        try GeneratedFixture.ffmpeg(
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i",
                "sine=frequency=440", "-t", "\(seconds)", "-c:v", "libx264", "-g", "25", "-c:a", "aac", path
            ])
    }
}

extension ExternalTool {
    /// How many packets of the stream `specifier` selects (`v:0`, `a:0`) ffprobe reads from `path` (a
    /// file, a playlist or a URL), or -1 when it reads none.
    public static func packetCount(_ path: String, stream specifier: String) throws -> Int {
        try check(
            "ffprobe",
            [
                "-v", "error", "-select_streams", specifier, "-count_packets", "-show_entries",
                "stream=nb_read_packets",
                "-of", "csv=p=0", path
            ]
        ).output.split(separator: "\n").compactMap { Int($0) }.first ?? -1
    }

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
