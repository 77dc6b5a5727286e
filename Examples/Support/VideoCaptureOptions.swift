public import ArgumentParser
public import MediaFFmpeg
import MediaCore

/// `--camera /dev/videoN`, `--screen DISPLAY` and `--preview`: live video from a V4L2 camera or an X11
/// screen, and a window showing it, as camera-recorder and live-streamer take them.
public struct VideoCaptureOptions: ParsableArguments {
    /// `--camera`: a V4L2 camera.
    @Option(help: ArgumentHelp("A V4L2 camera as the video (video-devices lists them).", valueName: "/dev/videoN"))
    public var camera: String?

    /// `--screen`: an X11 display, or a region of it from X,Y.
    @Option(
        help: ArgumentHelp(
            "An X11 display as the video (:0, or :0+X,Y for a region of --size from X,Y).", valueName: "DISPLAY"))
    public var screen: String?

    /// `--preview`: show the video in a window.
    @Flag(
        help: ArgumentHelp(
            "Show the video in a window (on $DISPLAY) while it runs; closing the window stops the run, as Ctrl-C does.")
    )
    public var preview = false

    /// Nothing captured.
    public init() {}

    /// Refuses both a camera and a screen.
    public func validate() throws {
        if camera != nil && screen != nil { throw ValidationError("give one of --camera and --screen") }
    }

    /// `<example>: warning: screen :0: N frames dropped (…)` when the device missed `dropped` frame ticks,
    /// `nil` when it missed none: the file or stream has that many fewer frames than fps × seconds.
    public static func dropWarning(_ example: String, device: VideoCaptureSource.Device, dropped: Int64) -> String? {
        guard dropped > 0 else { return nil }
        return "\(example): warning: \(device): \(count: Int(dropped), "frame") dropped "
            + "(the device gave none in \(dropped == 1 ? "that tick" : "those ticks"))"
    }

    /// The device `--camera` or `--screen` names (`:0+10,20` is a region from 10,20), `nil` with neither.
    public var device: VideoCaptureSource.Device? {
        if let camera { return .camera(path: camera) }
        guard let screen else { return nil }
        let parts = screen.split(separator: "+", maxSplits: 1)
        let origin = parts.count == 2 ? parts[1].split(separator: ",").compactMap { Int($0) } : []
        return origin.count == 2
            ? .screen(display: String(parts[0]), x: origin[0], y: origin[1]) : .screen(display: screen)
    }
}
