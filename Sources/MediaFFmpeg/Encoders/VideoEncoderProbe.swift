internal import CMediaFFmpeg
public import MediaCore

/// The video codecs the encoders make, each with its software encoder and the hardware encoders FFmpeg
/// may have for it.
public enum VideoEncoderFamily: String, Sendable, Hashable, CaseIterable {
    /// H.264: ``H264Encoder``.
    case h264
    /// HEVC: ``HEVCEncoder``.
    case hevc
    /// AV1: ``AV1Encoder``.
    case av1
    /// VP9: ``VP9Encoder``.
    case vp9

    /// The codec's name in messages: `H.264`, `HEVC`, `AV1`, `VP9`.
    public var displayName: String {
        switch self {
        case .h264: return "H.264"
        case .hevc: return "HEVC"
        case .av1: return "AV1"
        case .vp9: return "VP9"
        }
    }

    /// The session configuration of `encoderName` for this codec.
    func codec(_ encoderName: String) -> any VideoEncoderCodec {
        switch self {
        case .h264: return H264Codec(encoderName: encoderName)
        case .hevc: return HEVCCodec(encoderName: encoderName)
        case .av1: return AV1Codec(encoderName: encoderName)
        case .vp9: return VP9Codec(encoderName: encoderName)
        }
    }

    /// The software encoder, which every build here has: `libx264`, `libx265`, `libsvtav1`, `libvpx-vp9`.
    public var softwareEncoder: String {
        switch self {
        case .h264: return "libx264"
        case .hevc: return "libx265"
        case .av1: return "libsvtav1"
        case .vp9: return "libvpx-vp9"
        }
    }

    /// The hardware encoders FFmpeg 5.1 can be built with for the codec (NVIDIA NVENC, VA-API, Intel
    /// Quick Sync, V4L2 memory-to-memory devices), in the order ``VideoEncoderProbe/encoderName(for:preferringHardware:)``
    /// tries them.
    public var hardwareEncoders: [String] {
        switch self {
        case .h264: return ["h264_nvenc", "h264_qsv", "h264_vaapi", "h264_v4l2m2m"]
        case .hevc: return ["hevc_nvenc", "hevc_qsv", "hevc_vaapi", "hevc_v4l2m2m"]
        case .av1: return ["av1_nvenc", "av1_qsv", "av1_vaapi"]
        case .vp9: return ["vp9_qsv", "vp9_vaapi"]
        }
    }

    /// A new encoder of this codec, backed by `encoderName` (the software one by default).
    public func encoder(settings: VideoEncoderSettings = VideoEncoderSettings(), encoderName: String? = nil)
        throws(MediaError) -> sending VideoEncoder
    {
        let name = encoderName ?? softwareEncoder
        switch self {
        case .h264: return try H264Encoder(settings: settings, encoderName: name)
        case .hevc: return try HEVCEncoder(settings: settings, encoderName: name)
        case .av1: return try AV1Encoder(settings: settings, encoderName: name)
        case .vp9: return try VP9Encoder(settings: settings, encoderName: name)
        }
    }

    /// The family of FFmpeg's codec `id`, if it is one of these.
    init?(_ id: AVCodecID) {
        switch id {
        case AV_CODEC_ID_H264: self = .h264
        case AV_CODEC_ID_HEVC: self = .hevc
        case AV_CODEC_ID_AV1: self = .av1
        case AV_CODEC_ID_VP9: self = .vp9
        default: return nil
        }
    }
}

/// Which video encoders this FFmpeg build has and which of them can run here, found by trying them:
/// each is opened through its ``VideoEncoder`` on one small frame, as a pipeline would open it. What
/// VideoToolbox's `VTCopyVideoEncoderList` and its hardware-acceleration properties say on Apple's
/// platforms, and what `ffmpeg -encoders` cannot say (it lists what was built, not what runs).
///
/// ```swift
/// for result in VideoEncoderProbe.probeAll() { print(result) }
/// // hevc_nvenc (HEVC, hardware): in this FFmpeg build, cannot run here: …libcuda.so.1…
/// let name = VideoEncoderProbe.encoderName(for: .hevc, preferringHardware: true)   // "libx265" here
/// ```
///
/// A hardware encoder that takes only frames in device memory (VA-API's) cannot be fed by this
/// library, which hands encoders frames in system memory: it is reported as not usable, with that
/// reason, even where the device exists.
public enum VideoEncoderProbe {
    /// What the probe found for one encoder.
    public struct Result: Sendable, Hashable, CustomStringConvertible {
        /// FFmpeg's name of the encoder: `libx265`, `hevc_nvenc`, ...
        public var encoderName: String
        /// The codec it makes.
        public var family: VideoEncoderFamily
        /// Whether it is a hardware encoder.
        public var isHardware: Bool
        /// Whether this FFmpeg build has it.
        public var isInBuild: Bool
        /// Whether it opened and encoded a frame here.
        public var works: Bool
        /// Why it does not work (`nil` when it does).
        public var reason: String?

        /// `hevc_nvenc (HEVC, hardware): in this FFmpeg build; the HEVC encoder hevc_nvenc cannot run here: …`.
        public var description: String {
            let kind = "\(encoderName) (\(family.displayName), \(isHardware ? "hardware" : "software"))"
            if works { return "\(kind): works here" }
            return "\(kind): " + (isInBuild ? "in this FFmpeg build; " : "") + (reason ?? "")
        }
    }

    /// Tries the encoder named `encoderName`: whether the build has it and whether it encodes a 256×144
    /// frame here.
    public static func probe(_ encoderName: String) -> Result {
        guard let codec = avcodec_find_encoder_by_name(encoderName) else {
            let family = VideoEncoderFamily.allCases.first { encoderName.hasPrefix($0.rawValue) } ?? .h264
            return Result(
                encoderName: encoderName, family: family, isHardware: true, isInBuild: false, works: false,
                reason: "not in this FFmpeg build")
        }
        let hardware = isHardware(codec)
        guard let family = VideoEncoderFamily(codec.pointee.id) else {
            return Result(
                encoderName: encoderName, family: .h264, isHardware: hardware, isInBuild: true, works: false,
                reason: "not an H.264, HEVC, AV1 or VP9 encoder")
        }
        var result = Result(
            encoderName: encoderName, family: family, isHardware: hardware, isInBuild: true, works: false,
            reason: nil)
        // The first system-memory format the encoder lists that the stage takes (none listed: yuv420p).
        let accepted = family.codec(encoderName).acceptedPixelFormats
        var pixels: PixelFormat? = .yuv420p
        if var format = codec.pointee.pix_fmts {
            pixels = nil
            while format.pointee != AV_PIX_FMT_NONE, pixels == nil {
                pixels = PixelFormat(format.pointee).flatMap { accepted.contains($0) ? $0 : nil }
                format += 1
            }
        }
        guard let pixels else {
            result.reason =
                "it takes frames in device memory only (or formats the stage does not), which this library does not upload"
            return result
        }
        do {
            var settings = VideoEncoderSettings()
            settings.threads = 1
            if encoderName == "libx265" { settings.encoderOptions = ["x265-params": "log-level=error"] }
            let encoder = try family.encoder(settings: settings, encoderName: encoderName)
            let format = VideoFormat.raw(pixels, width: 256, height: 144, frameRate: FrameRate(25))
            let planes = format.planeByteCounts.map { [UInt8](repeating: 128, count: $0) }
            let frame = MediaSample(
                format: .video(format), planes: planes,
                timing: SampleTiming(presentationTime: .zero, duration: MediaTime(value: 1, timescale: 25)),
                frameCount: 1)
            var packets = 0
            try encoder.process(frame) { _ in packets += 1 }
            try encoder.finish { _ in packets += 1 }
            result.works = packets > 0
            if packets == 0 { result.reason = "it opened but gave no packet for a frame" }
        } catch let error as MediaError {
            result.reason = error.message
        } catch {
            result.reason = "\(error)"
        }
        return result
    }

    /// Every hardware encoder of every family, then the software ones, probed.
    public static func probeAll() -> [Result] {
        VideoEncoderFamily.allCases.flatMap { $0.hardwareEncoders }.map(probe)
            + VideoEncoderFamily.allCases.map { probe($0.softwareEncoder) }
    }

    /// The encoder to use for `family`: with `preferringHardware`, the first of its hardware encoders
    /// that works here, else (and without it) the software encoder.
    public static func encoderName(for family: VideoEncoderFamily, preferringHardware: Bool) -> String {
        guard preferringHardware else { return family.softwareEncoder }
        return family.hardwareEncoders.first { probe($0).works } ?? family.softwareEncoder
    }

    /// Whether `encoder` is a hardware one: FFmpeg's capability flag, or (for the wrappers that do not
    /// set it) the device API in its name. Such an encoder failing to open means it cannot run here.
    static func isHardware(_ encoder: UnsafePointer<AVCodec>) -> Bool {
        let name = String(cString: encoder.pointee.name)
        return encoder.pointee.capabilities & Int32(AV_CODEC_CAP_HARDWARE) != 0
            || ["_nvenc", "_qsv", "_vaapi", "_v4l2m2m", "_amf"].contains { name.hasSuffix($0) }
    }
}
