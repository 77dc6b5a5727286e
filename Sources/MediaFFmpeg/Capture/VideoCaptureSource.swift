internal import CMediaFFmpeg
import Glibc
public import MediaCore
import Synchronization

/// Live video from a V4L2 camera or an X11 screen as a ``/MediaCore/MediaSource``: `AVCaptureSession`
/// with a camera's `AVCaptureDeviceInput` (or a screen input), GStreamer's `v4l2src` and `ximagesrc`.
///
/// ```swift
/// let clock = MediaClock()
/// let screen = try VideoCaptureSource(.screen(display: ":0"), configuration: .init(frameRate: FrameRate(30)),
///                                     clock: clock)
/// let camera = try VideoCaptureSource(.camera(path: "/dev/video0"),
///                                     configuration: .init(width: 1280, height: 720, cameraFormat: "mjpeg"),
///                                     clock: clock)
/// while let frame = try screen.next() { … }     // yuv420p frames, stamped on the clock
/// ```
///
/// - **Devices**: ``Device/camera(path:)`` opens a V4L2 node (see ``VideoDevice`` for what it offers)
///   in the format, size and rate asked (``Configuration/cameraFormat``: `yuyv422`, `nv12`, `mjpeg`,
///   `h264`; MJPEG and H.264 are decoded); ``Device/screen(display:x:y:)`` captures an X11 display (its
///   whole screen, or the region of ``Configuration/width`` × ``Configuration/height`` at `x`, `y`), with
///   the cursor drawn or not. Both through libavdevice (`v4l2`, `x11grab` over XCB), as
///   `ffmpeg -f v4l2` / `-f x11grab` capture.
/// - **Samples**: raw frames of ``Configuration/pixelFormat`` (`yuv420p` by default, what the H.264
///   encoder takes), converted with libswscale (bicubic, as the ffmpeg CLI converts). Each frame is
///   stamped on `clock` at the tick of the frame rate nearest the time it was captured (the device's time
///   stamp, moved from the wall clock it is given in to the clock's monotonic time), so a camera or screen
///   and a microphone on the same clock stay in sync within half a frame, and an encoder gets at most one
///   frame per tick: a frame captured in the tick of the one before (the screen grabber catching up after
///   a delay, back to back) shows the same instant and is passed over. Each frame lasts one tick.
/// - **Drops**: ticks without a frame are frames the device missed, counted in ``droppedFrameCount``.
/// - **End**: ``stopSignal`` ends it from any thread: ``next()`` returns `nil` within a frame. A device that
///   goes away, or gives no frame for ``stallTimeout``, ends it with ``/MediaCore/MediaError/Code/deviceLost``
///   naming it, after the frames already delivered (a file being written stays valid).
/// - **Errors on open**: a camera path where nothing is, or that is not a video device, as
///   ``VideoDevice/init(path:)`` says; a display that cannot be opened (no X server, no `DISPLAY`) or a
///   configuration the device refuses as ``/MediaCore/MediaError/Code/unavailable`` naming it.
///
/// Not `Sendable`: one thread reads it (a graph's branch); only ``stopSignal`` crosses threads.
public final class VideoCaptureSource: MediaSource {
    /// A capture's frame counts, written by the thread reading the source and readable from any other
    /// (a progress line, a summary after the graph ran: the source itself has gone into the graph).
    public final class Counts: Sendable {
        private let handedOut = Atomic<Int64>(0)
        private let missed = Atomic<Int64>(0)

        /// Frames handed out so far.
        public var frames: Int64 { handedOut.load(ordering: .relaxed) }
        /// Ticks of the frame rate the device gave no frame for (frames it missed).
        public var droppedFrames: Int64 { missed.load(ordering: .relaxed) }

        func countFrame() { handedOut.add(1, ordering: .relaxed) }
        func countDropped(_ frames: Int64) { missed.add(frames, ordering: .relaxed) }
    }

    /// What to capture.
    public enum Device: Sendable, Hashable, CustomStringConvertible {
        /// A V4L2 camera, `/dev/videoN`.
        case camera(path: String)
        /// An X11 display (`:0`, `:99.0`), from `x`, `y`.
        case screen(display: String, x: Int = 0, y: Int = 0)

        /// `camera /dev/video0`, `screen :0`.
        public var description: String {
            switch self {
            case .camera(let path): return "camera \(path)"
            case .screen(let display, let x, let y):
                return x == 0 && y == 0 ? "screen \(display)" : "screen \(display)+\(x),\(y)"
            }
        }
    }

    /// How to capture.
    public struct Configuration: Sendable, Hashable {
        /// The frame width (with ``height``); `nil`: the device's default size (a screen's whole width).
        public var width: Int?
        /// The frame height; `nil`: the device's default.
        public var height: Int?
        /// Frames per second to capture.
        public var frameRate: FrameRate
        /// The camera's format (FFmpeg's `-input_format`: `yuyv422`, `nv12`, `mjpeg`, `h264`), or `nil`
        /// for the driver's default.
        public var cameraFormat: String?
        /// Whether the screen grabber draws the cursor.
        public var showsCursor: Bool
        /// The pixel format of the frames handed out.
        public var pixelFormat: PixelFormat

        /// A configuration; every value has a default.
        public init(
            width: Int? = nil, height: Int? = nil, frameRate: FrameRate = FrameRate(30), cameraFormat: String? = nil,
            showsCursor: Bool = true, pixelFormat: PixelFormat = .yuv420p
        ) {
            (self.width, self.height, self.frameRate) = (width, height, frameRate)
            (self.cameraFormat, self.showsCursor, self.pixelFormat) = (cameraFormat, showsCursor, pixelFormat)
        }
    }

    /// The device captured.
    public let device: Device
    /// The format of the frames handed out.
    public let format: VideoFormat
    /// The clock the frames are stamped on.
    public let clock: MediaClock
    /// Ends the capture from any thread (``next()`` returns `nil` within a frame).
    public let stopSignal = StopSignal()
    /// How long the device may give no frame before the capture ends with
    /// ``/MediaCore/MediaError/Code/deviceLost``. 5 s by default.
    public var stallTimeout = MediaTime.seconds(5)
    /// The frame counts, readable from any thread while a graph's branch reads the source.
    public let counts = Counts()
    /// Frames handed out so far.
    public var frameCount: Int64 { counts.frames }
    /// Frames the device missed (see the type's documentation).
    public var droppedFrameCount: Int64 { counts.droppedFrames }
    /// `VideoCaptureSource(camera /dev/video0)`.
    public var name: String { "VideoCaptureSource(\(device))" }

    let input: InputFormatContext
    let decoder: CodecContext
    let packet: Packet
    let decoded: Frame
    var conversion: (scaler: Scaler, frame: Frame, source: (Int32, Int32, Int32))?
    var lastTick: Int64?
    var lastFrameHostTime = MediaClock.hostTime
    var ended = false

    /// Opens `device` as `configuration` says, its frames to be stamped on `clock`.
    ///
    /// - Throws: see the type's documentation.
    public init(_ device: Device, configuration: Configuration = Configuration(), clock: MediaClock = MediaClock())
        throws(MediaError)
    {
        guard configuration.frameRate.isValid else {
            throw MediaError(.invalidArgument, "cannot capture \(device) at \(configuration.frameRate) frames a second")
        }
        if (configuration.width == nil) != (configuration.height == nil)
            || [configuration.width, configuration.height].contains(where: { ($0 ?? 2) < 2 || ($0 ?? 2) > 16_384 })
        {
            throw MediaError(.invalidArgument, "give a capture size as both a width and a height of 2 to 16384")
        }
        FFmpeg.quietLogging()
        mp_avdevice_register_all()
        var options: [(String, String)] = [("framerate", configuration.frameRate.description)]
        if let width = configuration.width, let height = configuration.height {
            options.append(("video_size", "\(width)x\(height)"))
        }
        let formatName: String
        let url: String
        switch device {
        case .camera(let path):
            _ = try VideoDevice(path: path)  // a typed error naming the path, before libavdevice's
            formatName = "v4l2"
            url = path
            if let cameraFormat = configuration.cameraFormat { options.append(("input_format", cameraFormat)) }
            // Non-blocking reads (the driver's EAGAIN instead of a VIDIOC_DQBUF that waits forever): a stop
            // or a camera that stops sending is noticed while waiting. (x11grab paces itself: no such wait.)
            options.append(("fflags", "nonblock"))
        case .screen(let display, let x, let y):
            formatName = "x11grab"
            url = "\(display)+\(x),\(y)"
            options.append(("draw_mouse", configuration.showsCursor ? "1" : "0"))
        }
        do throws(MediaError) {
            input = try InputFormatContext(url: url, io: nil, formatName: formatName, options: options)
        } catch {
            var reason = error.message
            if case .screen(let display, _, _) = device {
                reason = "no X server lets us capture \(display) (\(error.message))"
            }
            throw MediaError(.unavailable, "cannot capture \(device): \(reason)", ffmpegCall: error.ffmpegCall)
        }
        guard input.raw.pointee.nb_streams >= 1, let stream = input.raw.pointee.streams[0],
            let codec = avcodec_find_decoder(stream.pointee.codecpar.pointee.codec_id)
        else {
            throw MediaError(.unavailable, "cannot capture \(device): libavdevice gives no stream FFmpeg can decode")
        }
        decoder = try CodecContext(codec: codec)
        try check(
            avcodec_parameters_to_context(decoder.raw, stream.pointee.codecpar),
            calling: "avcodec_parameters_to_context")
        try check(avcodec_open2(decoder.raw, codec, nil), calling: "avcodec_open2", .unavailable)
        packet = try Packet()
        decoded = try Frame()
        let parameters = stream.pointee.codecpar.pointee
        self.device = device
        self.clock = clock
        format = VideoFormat(
            codec: .raw(configuration.pixelFormat), width: Int(parameters.width), height: Int(parameters.height),
            frameRate: configuration.frameRate)
    }

    /// The next frame, waiting for the device; `nil` once ``stopSignal`` is given.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/deviceLost`` when the device goes away or stalls; the
    ///   decoder's errors for a camera's frame it cannot decode.
    public func next() throws(MediaError) -> MediaSample? {
        while !ended {
            if stopSignal.isRequested {
                ended = true
                return nil
            }
            if let frame = try readFrame() { return frame }
        }
        return nil
    }
}

@available(*, unavailable) extension VideoCaptureSource: Sendable {}
