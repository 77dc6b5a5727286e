internal import CMediaFFmpeg
import Glibc
public import MediaCore

/// A V4L2 camera (`/dev/videoN`) and what it can capture: `AVCaptureDevice` with
/// `AVCaptureDevice.DiscoverySession`, or GStreamer's `v4l2src` device provider.
///
/// ```swift
/// for camera in try VideoDevice.cameras() {
///     print(camera.path, camera.name, camera.formats.map(\.pixelFormat))
/// }
/// ```
///
/// ``cameras()`` lists the `/dev/video*` nodes that capture video (a UVC camera also has metadata nodes,
/// which are left out), in path order; with no camera present the list is empty. Each lists its formats
/// (the driver's four-character code and FFmpeg's name: `yuyv422`, `nv12`, `mjpeg`, `h264`), each with
/// its frame sizes and, for each size, the frame rates. Backed by the V4L2 ioctls `VIDIOC_QUERYCAP`,
/// `VIDIOC_ENUM_FMT`, `VIDIOC_ENUM_FRAMESIZES` and `VIDIOC_ENUM_FRAMEINTERVALS`.
public struct VideoDevice: Sendable, Hashable {
    /// One pixel format the device delivers, with its sizes.
    public struct Format: Sendable, Hashable {
        /// The V4L2 four-character code (`YUYV`, `NV12`, `MJPG`, `H264`).
        public var fourCC: String
        /// FFmpeg's name for it as `VideoCaptureSource` takes it (`yuyv422`, `nv12`, `mjpeg`, `h264`), or
        /// the four-character code lower-cased for one it has no name for.
        public var pixelFormat: String
        /// The driver's description (`YUYV 4:2:2`, `Motion-JPEG`).
        public var description: String
        /// Whether the frames are compressed (MJPEG, H.264), so decoded by `VideoCaptureSource`.
        public var isCompressed: Bool
        /// The frame sizes, each with its frame rates (largest rate first); for a device with stepwise
        /// sizes, the smallest and the largest.
        public var sizes: [Size]
    }

    /// A frame size and the rates the device gives at it.
    public struct Size: Sendable, Hashable {
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// Frame rates, as frames per second.
        public var frameRates: [FrameRate]
    }

    /// The device node, `/dev/videoN`.
    public var path: String
    /// The device's name (`VIDIOC_QUERYCAP`'s card).
    public var name: String
    /// The driver (`uvcvideo`, `v4l2 loopback`).
    public var driver: String
    /// Where it is attached (`usb-0000:00:14.0-1`).
    public var busInfo: String
    /// The formats it captures.
    public var formats: [Format]

    /// The cameras present: every `/dev/video*` that captures video, in path order (an empty list when
    /// there is none).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/io`` when `/dev` cannot be read.
    public static func cameras() throws(MediaError) -> [VideoDevice] {
        guard let directory = opendir("/dev") else {
            throw MediaError(.io, "cannot list /dev: \(String(cString: strerror(errno)))")
        }
        defer { closedir(directory) }
        var paths: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("video"), Int(name.dropFirst(5)) != nil { paths.append("/dev/" + name) }
        }
        paths.sort { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }
        return paths.compactMap { path in
            guard let device = try? VideoDevice(path: path), !device.formats.isEmpty else { return nil }
            return device
        }
    }

    /// The device at `path` with what it captures.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/unavailable`` naming `path` when nothing is there or it
    ///   cannot be opened (permissions: the user is not in the `video` group), and
    ///   ``/MediaCore/MediaError/Code/invalidArgument`` naming it when it is not a V4L2 device or does not
    ///   capture video.
    public init(path: String) throws(MediaError) {
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw MediaError(.unavailable, "cannot open the camera '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var capability = v4l2_capability()
        guard mp_v4l2_querycap(fd, &capability) == 0 else {
            throw MediaError(
                .invalidArgument, "'\(path)' is not a V4L2 video device: \(String(cString: strerror(errno)))")
        }
        let capabilities =
            capability.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0
            ? capability.device_caps : capability.capabilities
        guard capabilities & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 else {
            throw MediaError(.invalidArgument, "'\(path)' does not capture video (a metadata or output node)")
        }
        self.path = path
        name = Self.string(capability.card)
        driver = Self.string(capability.driver)
        busInfo = Self.string(capability.bus_info)
        formats = Self.formats(fd)
    }

    private static func formats(_ fd: Int32) -> [Format] {
        var formats: [Format] = []
        var description = v4l2_fmtdesc()
        description.type = UInt32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        while mp_v4l2_enum_fmt(fd, &description) == 0 {
            let code = description.pixelformat
            let fourCC = String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: code >> (8 * $0)) }, as: UTF8.self)
            formats.append(
                Format(
                    fourCC: fourCC, pixelFormat: ffmpegName(fourCC), description: string(description.description),
                    isCompressed: description.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0,
                    sizes: sizes(fd, code)))
            description.index += 1
        }
        return formats
    }

    private static func sizes(_ fd: Int32, _ code: UInt32) -> [Size] {
        var sizes: [Size] = []
        var entry = v4l2_frmsizeenum()
        entry.pixel_format = code
        while mp_v4l2_enum_framesizes(fd, &entry) == 0 {
            if entry.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                let discrete = mp_v4l2_frmsize_discrete(&entry)
                sizes.append(size(fd, code, Int(discrete.width), Int(discrete.height)))
            } else {
                let stepwise = mp_v4l2_frmsize_stepwise(&entry)
                sizes.append(size(fd, code, Int(stepwise.min_width), Int(stepwise.min_height)))
                sizes.append(size(fd, code, Int(stepwise.max_width), Int(stepwise.max_height)))
                break
            }
            entry.index += 1
        }
        return sizes
    }

    private static func size(_ fd: Int32, _ code: UInt32, _ width: Int, _ height: Int) -> Size {
        var rates: [FrameRate] = []
        var interval = v4l2_frmivalenum()
        interval.pixel_format = code
        interval.width = UInt32(width)
        interval.height = UInt32(height)
        while mp_v4l2_enum_frameintervals(fd, &interval) == 0, interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
            let fraction = mp_v4l2_frmival_discrete(&interval)
            // An interval of n/d seconds is d/n frames a second.
            if fraction.numerator > 0,
                let rate = FrameRate.reduced(Int64(fraction.denominator), Int64(fraction.numerator))
            {
                rates.append(rate)
            }
            interval.index += 1
        }
        rates.sort { Int64($0.numerator) * Int64($1.denominator) > Int64($1.numerator) * Int64($0.denominator) }
        return Size(width: width, height: height, frameRates: rates)
    }

    /// FFmpeg's `-input_format` name for a V4L2 code.
    static func ffmpegName(_ fourCC: String) -> String {
        switch fourCC {
        case "YUYV": return "yuyv422"
        case "UYVY": return "uyvy422"
        case "NV12": return "nv12"
        case "YU12": return "yuv420p"
        case "MJPG": return "mjpeg"
        case "H264": return "h264"
        case "GREY": return "gray"
        case "RGB3": return "rgb24"
        case "BGR3": return "bgr24"
        default: return String(fourCC.lowercased().filter { $0 != " " })
        }
    }

    /// A NUL-terminated C char array (imported as a tuple) as a string.
    private static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
