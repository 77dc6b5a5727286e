import Foundation
import MediaTestSupport
import Testing

/// `video-devices` and `camera-recorder` where nothing can be captured (this machine has no camera, and
/// no X server answers at the display asked): an empty list and status 0, and one line naming what is
/// not there with status 1; usage mistakes are one line and status 64.
@Suite(.timeLimit(.minutes(2))) struct VideoDevicesExampleTests {
    static let devices = TestPaths.executable("video-devices")
    static let recorder = TestPaths.executable("camera-recorder")

    @Test func withNoCameraTheListIsEmpty() throws {
        let nodes =
            (try? FileManager.default.contentsOfDirectory(atPath: "/dev"))?.filter { $0.hasPrefix("video") } ?? []
        let text = try ExternalTool.check(Self.devices, [])
        let json = try ExternalTool.check(Self.devices, ["--json"])
        let list = try #require(
            try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]], "\(json.output)")
        if nodes.isEmpty {
            #expect(list.isEmpty && text.output.hasPrefix("No V4L2 cameras"), "\(text.output)")
        } else {
            #expect(list.allSatisfy { ($0["path"] as? String)?.hasPrefix("/dev/video") == true }, "\(list)")
        }
    }

    @Test func whatCannotBeRecordedIsOneLine() throws {
        let dir = try TemporaryDirectory()
        var free = 989
        while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(free)") { free -= 1 }
        for (arguments, words, status) in [
            (["--camera", "/dev/video-not-here", "--output", dir.file("a.mp4")], "/dev/video-not-here", Int32(1)),
            (["--camera", "/dev/null", "--output", dir.file("a.mp4")], "not a V4L2 video device", 1),
            (["--screen", ":\(free)", "--output", dir.file("a.mp4")], ":\(free)", 1),
            (
                ["--camera", "/dev/video0", "--screen", ":0", "--output", dir.file("a.mp4")],
                "one of --camera and --screen", 64
            ),
            (["--output", dir.file("a.mp4")], "one of --camera and --screen", 64),
            (
                ["--screen", ":0", "--camera-format", "mjpeg", "--output", dir.file("a.mp4")],
                "--camera-format is for --camera", 64
            ),
            (["--screen", ":0", "--output", dir.file("a.wav")], "cannot tell the container", 64)
        ] {
            let run = try ExternalTool.run(Self.recorder, arguments)
            let lines = run.stderr.split(separator: "\n")
            #expect(run.status == status, "\(arguments): \(run.stderr)")
            #expect(
                lines.count == 1 && lines[0].hasPrefix("camera-recorder: ") && run.stderr.contains(words),
                "\(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("a.mp4")))
    }
}
