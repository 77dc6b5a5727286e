public import Foundation

/// A private X server for one test: `Xvfb` on a free display number, with no TCP listener, stopped by
/// ``stop()`` (or when released). Screen capture reads it; X clients the test starts (``spawn(_:_:)``:
/// `ffplay`, ImageMagick's `display`) draw on it; `xwd` screenshots judge it, none of them this library.
public final class XvfbServer {
    /// The display, `:N`.
    public let display: String
    /// The screen's size.
    public let width: Int
    /// The screen's height.
    public let height: Int
    /// Where the clients' output goes.
    public let folder: String
    /// The environment for X clients: `DISPLAY` and SDL's X11 driver, and `PATH`.
    public let environment: [String: String]
    private let server: ChildProcess

    /// Starts `Xvfb` with a `width`×`height`×24 screen on the first free display from a random one in
    /// 90...989, and waits (at most `timeout` seconds) until `xdpyinfo` reaches it.
    public init(width: Int = 640, height: Int = 360, timeout: TimeInterval = 10) throws {
        self.width = width
        self.height = height
        folder = NSTemporaryDirectory() + "mediapipeline-xvfb-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let first = Int.random(in: 90...989)
        let deadline = Date(timeIntervalSinceNow: timeout)
        for offset in 0..<900 {
            let number = 90 + (first - 90 + offset) % 900
            guard !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock"),
                !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)")
            else { continue }
            let display = ":\(number)"
            let base = ProcessInfo.processInfo.environment
            let child = try ChildProcess(
                "Xvfb", [display, "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp", "-noreset"],
                environment: ["PATH": base["PATH"] ?? "/usr/bin:/bin"], outputBase: folder + "/xvfb")
            let environment = [
                "DISPLAY": display, "SDL_VIDEODRIVER": "x11", "PATH": base["PATH"] ?? "/usr/bin:/bin",
                "HOME": base["HOME"] ?? folder
            ]
            // Ready once a client connects; a server that exits lost the number to another one.
            while child.isRunning && Date() < deadline {
                if (try? ExternalTool.run("xdpyinfo", ["-display", display]))?.status == 0 {
                    (self.display, self.environment, server) = (display, environment, child)
                    return
                }
                usleep(50_000)
            }
            child.kill()
            guard Date() < deadline else { break }
        }
        throw ExternalTool.Failure(description: "no Xvfb started within \(timeout) s (see \(folder)/xvfb.err)")
    }

    deinit { stop() }

    /// Starts an X client (by name or path) on this display in the background.
    public func spawn(_ tool: String, _ arguments: [String]) throws -> ChildProcess {
        let name = tool.split(separator: "/").last.map(String.init) ?? tool
        return try ChildProcess(
            tool, arguments, environment: environment, outputBase: folder + "/\(name)-\(UUID().uuidString.prefix(8))")
    }

    /// The whole screen now as `rgb24` pixels, taken with `xwd` and converted by ImageMagick.
    public func screenshot() throws -> Data {
        let dump = folder + "/shot-\(UUID().uuidString.prefix(8)).xwd"
        let shot = try spawn("xwd", ["-root", "-silent", "-out", dump])
        guard shot.wait(timeout: 10), shot.result.status == 0 else {
            shot.kill()
            throw ExternalTool.Failure(description: "xwd failed: \(shot.result.stderr)")
        }
        return try ExternalTool.check("convert", [dump, "-depth", "8", "rgb:-"]).stdout
    }

    /// Stops the server (and so its clients' connections).
    public func stop() {
        server.kill()
    }
}
