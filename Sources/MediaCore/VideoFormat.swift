/// The codec of a video stream.
public enum VideoCodec: Sendable, Hashable, CustomStringConvertible {
    /// Uncompressed frames in the given pixel format.
    case raw(PixelFormat)
    /// H.264 / AVC, as AVCC samples (4-byte length-prefixed NAL units, one access unit per sample),
    /// with the parameter sets in ``VideoFormat/h264``.
    case h264
    /// Any other codec, by its four-character code (`hvc1`, `av01`, `vp09`, `mp4v`), as a demuxer hands
    /// it out for a decoder stage that takes it; its configuration record, if any, is in
    /// ``VideoFormat/codecConfiguration``.
    case other(fourCC: UInt32)

    /// `yuv420p`, `nv12`, ... or `h264`.
    public var description: String {
        switch self {
        case .raw(let pixelFormat): return pixelFormat.description
        case .h264: return "h264"
        case .other(let code):
            let chars = (0..<4).map { Character(Unicode.Scalar(UInt8(truncatingIfNeeded: code >> (24 - 8 * $0)))) }
            return "'\(String(chars))'"
        }
    }
}

/// What an H.264 decoder needs before the first frame, and what describes the stream: the parameter
/// sets (`CMVideoFormatDescriptionCreateFromH264ParameterSets`) and the profile and level they declare.
public struct H264Parameters: Sendable, Hashable {
    /// The sequence parameter set NAL units, header byte included, without start codes or lengths.
    public var sequenceParameterSets: [[UInt8]]
    /// The picture parameter set NAL units, header byte included.
    public var pictureParameterSets: [[UInt8]]
    /// `profile_idc` of the first SPS (66 Baseline, 77 Main, 100 High, ...); 0 when there is none.
    public var profile: Int { sequenceParameterSets.first.map { $0.count > 1 ? Int($0[1]) : 0 } ?? 0 }
    /// `level_idc` of the first SPS (31 is level 3.1); 0 when there is none.
    public var level: Int { sequenceParameterSets.first.map { $0.count > 3 ? Int($0[3]) : 0 } ?? 0 }

    /// Parameters with the given SPS and PPS NAL units.
    public init(sequenceParameterSets: [[UInt8]], pictureParameterSets: [[UInt8]]) {
        self.sequenceParameterSets = sequenceParameterSets
        self.pictureParameterSets = pictureParameterSets
    }
}

/// A video stream's format, like `CMVideoFormatDescription`: codec, coded size, frame rate and, for raw
/// frames, the plane layout; for H.264, the parameter sets.
///
/// A raw frame travels as one ``MediaSample`` whose ``MediaSample/planes`` hold the pixel planes in
/// ``PixelFormat`` order, each row ``bytesPerRow``[plane] bytes apart (the stride, `linesize` in FFmpeg,
/// `CVPixelBufferGetBytesPerRowOfPlane` on Apple's platforms), with ``height`` (or the chroma height)
/// rows in each plane.
public struct VideoFormat: Sendable, Hashable, CustomStringConvertible {
    /// The codec, with the pixel format for raw frames.
    public var codec: VideoCodec
    /// Visible width in pixels.
    public var width: Int
    /// Visible height in pixels.
    public var height: Int
    /// Frames per second as a rational number (`24/1`, `30000/1001`), or `nil` when the stream does not say.
    public var frameRate: FrameRate?
    /// For raw frames, the distance in bytes between rows of each plane; empty for compressed codecs.
    public var bytesPerRow: [Int]
    /// For H.264, the parameter sets; `nil` for other codecs or before they are known.
    public var h264: H264Parameters?
    /// The shape of a pixel, or `nil` when unknown (`kCVImageBufferPixelAspectRatioKey`, y4m's `A`,
    /// H.264's `sample_aspect_ratio`).
    public var pixelAspectRatio: PixelAspectRatio?
    /// Where the chroma samples of subsampled formats sit, or `nil` when unspecified
    /// (`kCVImageBufferChromaLocationTopFieldKey`, H.264's `chroma_sample_loc_type`).
    public var chromaLocation: ChromaLocation?
    /// For ``VideoCodec/other(fourCC:)``, the codec's configuration record as the container stores it
    /// (`hvcC`, `av1C`, ...); empty otherwise.
    public var codecConfiguration: [UInt8] = []

    /// A format with every field given. `bytesPerRow` empty means tightly packed rows for raw frames.
    public init(
        codec: VideoCodec, width: Int, height: Int, frameRate: FrameRate? = nil,
        bytesPerRow: [Int] = [], h264: H264Parameters? = nil,
        pixelAspectRatio: PixelAspectRatio? = nil, chromaLocation: ChromaLocation? = nil
    ) {
        self.pixelAspectRatio = pixelAspectRatio
        self.chromaLocation = chromaLocation
        self.codec = codec
        self.width = width
        self.height = height
        self.frameRate = frameRate
        if case .raw(let pixelFormat) = codec, bytesPerRow.isEmpty {
            self.bytesPerRow = (0..<pixelFormat.planeCount).map {
                pixelFormat.planeSize($0, width: width, height: height).bytesPerRow
            }
        } else {
            self.bytesPerRow = bytesPerRow
        }
        self.h264 = h264
    }

    /// Raw frames of `pixelFormat`, tightly packed.
    public static func raw(_ pixelFormat: PixelFormat, width: Int, height: Int, frameRate: FrameRate? = nil)
        -> VideoFormat
    {
        VideoFormat(codec: .raw(pixelFormat), width: width, height: height, frameRate: frameRate)
    }

    /// H.264 with the given parameter sets.
    public static func h264(
        width: Int, height: Int, frameRate: FrameRate? = nil, parameters: H264Parameters
    ) -> VideoFormat {
        VideoFormat(codec: .h264, width: width, height: height, frameRate: frameRate, h264: parameters)
    }

    /// The pixel format when the codec is raw, otherwise `nil`.
    public var pixelFormat: PixelFormat? {
        if case .raw(let pixelFormat) = codec { return pixelFormat }
        return nil
    }

    /// For raw frames, the number of rows in each plane; empty for compressed codecs.
    public var planeRows: [Int] {
        guard let pixelFormat else { return [] }
        return (0..<pixelFormat.planeCount).map { pixelFormat.planeSize($0, width: width, height: height).rows }
    }

    /// For raw frames, the bytes each plane takes with this format's strides.
    public var planeByteCounts: [Int] { zip(bytesPerRow, planeRows).map { $0 * $1 } }

    /// The same format with tightly packed rows (no padding at the end of a row).
    public var packed: VideoFormat {
        VideoFormat(
            codec: codec, width: width, height: height, frameRate: frameRate, h264: h264,
            pixelAspectRatio: pixelAspectRatio, chromaLocation: chromaLocation)
    }

    /// E.g. `yuv420p 1280x720 @ 24/1` or `h264 1280x720 (profile 100, level 31)`.
    public var description: String {
        var text = "\(codec) \(width)x\(height)"
        if let frameRate { text += " @ \(frameRate)" }
        if let pixelAspectRatio { text += " sar \(pixelAspectRatio)" }
        if let chromaLocation { text += " chroma \(chromaLocation)" }
        if let h264 { text += " (profile \(h264.profile), level \(h264.level))" }
        return text
    }
}

/// Frames per second as a rational number, like `AVRational` or y4m's `F30000:1001`.
public struct FrameRate: Sendable, Hashable, CustomStringConvertible {
    /// Frames in ``denominator`` seconds.
    public var numerator: Int32
    /// Seconds in which ``numerator`` frames are shown.
    public var denominator: Int32

    /// A rate of `numerator`/`denominator` frames per second.
    public init(_ numerator: Int32, _ denominator: Int32 = 1) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// Whether both terms are positive.
    public var isValid: Bool { numerator > 0 && denominator > 0 }

    /// How long one frame lasts, in a timescale of ``numerator`` (so frame *n* starts at `n × denominator`).
    public var frameDuration: MediaTime { MediaTime(value: Int64(denominator), timescale: numerator) }

    /// The presentation time of frame `index` (0-based), exact.
    public func time(ofFrame index: Int64) -> MediaTime {
        MediaTime(value: index * Int64(denominator), timescale: numerator)
    }

    /// `numerator`/`denominator` frames per second in lowest terms (`50/2` → `25/1`), or `nil` when a
    /// term is not positive or the reduced terms do not fit `Int32`.
    public static func reduced(_ numerator: Int64, _ denominator: Int64) -> FrameRate? {
        reducedInt32Terms(numerator, denominator).map { FrameRate($0.0, $0.1) }
    }

    /// E.g. `24/1` or `30000/1001`.
    public var description: String { "\(numerator)/\(denominator)" }
}

/// The shape of one pixel as horizontal : vertical spacing (`kCVImageBufferPixelAspectRatioKey`);
/// 1:1 is square.
public struct PixelAspectRatio: Sendable, Hashable, CustomStringConvertible {
    /// Relative width of a pixel.
    public var horizontalSpacing: Int
    /// Relative height of a pixel.
    public var verticalSpacing: Int

    /// A ratio of `horizontalSpacing`:`verticalSpacing`.
    public init(_ horizontalSpacing: Int, _ verticalSpacing: Int) {
        self.horizontalSpacing = horizontalSpacing
        self.verticalSpacing = verticalSpacing
    }

    /// Square pixels.
    public static let square = PixelAspectRatio(1, 1)

    /// `horizontalSpacing`:`verticalSpacing` in lowest terms (`4:2` → `2:1`), or `nil` when a term is
    /// not positive or the reduced terms do not fit `Int32` (as H.264's and FFmpeg's ratios must).
    public static func reduced(_ horizontalSpacing: Int64, _ verticalSpacing: Int64) -> PixelAspectRatio? {
        reducedInt32Terms(horizontalSpacing, verticalSpacing).map { PixelAspectRatio(Int($0.0), Int($0.1)) }
    }

    /// E.g. `1:1`.
    public var description: String { "\(horizontalSpacing):\(verticalSpacing)" }
}

/// Where the first chroma sample of a subsampled frame sits relative to the luma samples, in the
/// order of H.264's `chroma_sample_loc_type` (0...5) and FFmpeg's `AVChromaLocation` (1...6).
public enum ChromaLocation: Int, Sendable, Hashable, CaseIterable {
    /// Co-sited horizontally, between lines vertically: MPEG-2 4:2:0, H.264's default.
    case left = 0
    /// Between luma samples both ways: JPEG and MPEG-1 4:2:0.
    case center = 1
    /// Co-sited with the top-left luma sample: DV PAL, 4:2:2 as ITU-R BT.601 samples it.
    case topLeft = 2
    /// Co-sited with the top luma line, between samples horizontally.
    case top = 3
    /// Co-sited with the bottom-left luma sample.
    case bottomLeft = 4
    /// Co-sited with the bottom luma line, between samples horizontally.
    case bottom = 5
}
