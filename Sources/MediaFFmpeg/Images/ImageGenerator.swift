public import MediaCore

/// Still pictures from a movie at the times asked: `AVAssetImageGenerator`, or `ffmpeg -ss T -i movie
/// -frames:v 1`.
///
/// ```swift
/// let generator = try ImageGenerator(path: "movie.mp4")
/// let frame = try generator.image(at: .seconds(12))                  // raw pixels, the frame at 12 s
/// generator.scaling = .fitting(width: 320, height: 320)
/// let png = try generator.imageData(at: MediaTime(value: 25, timescale: 2), as: .png)
/// ```
///
/// - Times count from the start of the file (the container's ``ContainerDemuxer/startTime``), as
///   `ffmpeg -ss` and AVFoundation count them.
/// - ``Tolerance/exact`` (the default) gives the first frame presented at or after the time asked: the
///   frame `ffmpeg -ss T -i movie -frames:v 1` gives, pixel for pixel. The generator seeks to the
///   keyframe before the time and decodes from there; when a seek lands past the frame asked (an index
///   of decode times, B-frames presented before their keyframe), it seeks further back. A time after the
///   last frame asked before, within 2 s, is reached by decoding on instead of seeking, so times asked
///   in order (``images(every:_:)``) decode the movie once.
/// - ``Tolerance/keyframe`` gives the last keyframe presented at or before the time (the first frame
///   of the video for a time before it): only that frame is decoded, which is much faster for a long
///   group of pictures.
/// - ``scaling`` and ``pixelFormat`` convert the frame (``VideoConverter``: bicubic, as the ffmpeg CLI
///   scales); without them the frame comes as the decoder gives it. ``imageData(at:as:)`` encodes it as
///   ``ImageEncoder`` does.
/// - What it decodes: H.264 (``H264Decoder``), from anything ``ContainerDemuxer`` opens. A movie whose
///   first video stream has another codec throws ``/MediaCore/MediaError/Code/unsupportedFormat`` naming
///   it, as does a file without video.
///
/// A time that is not numeric, or after the last frame (exact) throws
/// ``/MediaCore/MediaError/Code/invalidArgument`` naming it and the last frame's time; the demuxer's and
/// decoder's errors pass through. Not thread-safe: one generator per thread.
public final class ImageGenerator {
    /// How close to the time asked the frame must be.
    public enum Tolerance: Sendable, Hashable {
        /// The first frame presented at or after the time.
        case exact
        /// The last keyframe presented at or before the time.
        case keyframe
    }

    /// The size of the pictures handed out.
    public enum Scaling: Sendable, Hashable {
        /// Exactly `width`×`height`, the shape not kept (`ffmpeg -s WxH`).
        case exactly(width: Int, height: Int)
        /// The largest size within `width`×`height` with the picture's display shape (its pixel aspect
        /// ratio counted), as `AVAssetImageGenerator.maximumSize` fits it; never larger than the frame.
        case fitting(width: Int, height: Int)
    }

    /// How close to the time asked the frame must be. ``Tolerance/exact`` by default.
    public var tolerance = Tolerance.exact
    /// The size of the pictures, or `nil` (the default) for the frame's own.
    public var scaling: Scaling?
    /// The pixel format of the pictures, or `nil` (the default) for the decoder's.
    public var pixelFormat: PixelFormat?

    /// The video stream's format, as the demuxer lists it.
    public let videoFormat: VideoFormat
    /// How long the movie lasts (the container's duration), or ``/MediaCore/MediaTime/invalid``.
    public let duration: MediaTime
    /// Where times count from, in the stream's time: the container's start time.
    let start: MediaTime
    let path: String
    let demuxer: ContainerDemuxer
    let source: ContainerDemuxer.StreamSource

    /// The decoder of ``Tolerance/exact``, from the last seek on; `nil` before the first and after a
    /// keyframe lookup (which moves the demuxer).
    var decoder: H264Decoder?
    /// Frames decoded and not yet taken, in presentation order.
    var pending: [MediaSample] = []
    /// The presentation time of the last frame taken (handed out or passed over) since the last seek.
    var lastTaken: MediaTime?
    /// Whether the decoder has been drained at the end of the input.
    var decodedToEnd = false
    private var converter: (key: Scaling?, format: PixelFormat?, stage: VideoConverter)?
    private var encoders: [ImageFileFormat: ImageEncoder] = [:]

    /// A generator for the first video stream of the file at `path`.
    ///
    /// - Throws: the demuxer's errors opening it; ``/MediaCore/MediaError/Code/unsupportedFormat`` when it
    ///   has no video stream or one that is not H.264.
    public init(path: String) throws(MediaError) {
        let demuxer = try ContainerDemuxer(path: path)
        guard let index = demuxer.firstVideoStream, let stream = demuxer.streams.first(where: { $0.index == index })
        else {
            throw MediaError(.unsupportedFormat, "'\(path)' has no video stream").inStage("ImageGenerator")
        }
        guard case .video(let format) = stream.format, format.codec == .h264 else {
            throw MediaError(
                .unsupportedFormat,
                "'\(path)': ImageGenerator decodes H.264 video; stream \(index) is \(stream.codecName)"
            ).inStage("ImageGenerator")
        }
        self.path = path
        self.demuxer = demuxer
        source = try demuxer.source(stream: index)
        videoFormat = format
        duration = demuxer.duration
        start = demuxer.startTime
    }

    /// The picture at `time` into the file, as ``tolerance``, ``scaling`` and ``pixelFormat`` say: a raw
    /// video sample whose presentation time is the frame's own time into the file (counted as `time` is,
    /// from the container's ``ContainerDemuxer/startTime``): AVFoundation's `actualTime`.
    ///
    /// - Throws: see the type's documentation.
    public func image(at time: MediaTime) throws(MediaError) -> MediaSample {
        guard time.isNumeric else {
            throw MediaError(.invalidArgument, "cannot take an image of '\(path)' at \(time)").inStage("ImageGenerator")
        }
        do throws(MediaError) {
            var frame = try tolerance == .exact ? exactFrame(at: start + time) : keyframe(at: start + time)
            frame.timing = SampleTiming(
                presentationTime: frame.timing.presentationTime - start, duration: frame.timing.duration)
            return try converted(frame)
        } catch {
            throw error.inStage("ImageGenerator")
        }
    }

    /// The picture at `time` as the bytes of a PNG or JPEG file (see ``image(at:)``).
    public func imageData(at time: MediaTime, as format: ImageFileFormat) throws(MediaError) -> [UInt8] {
        let picture = try image(at: time)
        let encoder: ImageEncoder
        if let kept = encoders[format] {
            encoder = kept
        } else {
            encoder = try ImageEncoder(format: format)
            encoders[format] = encoder
        }
        return try encoder.encode(picture)
    }

    /// Calls `body` with the picture at 0, `interval`, 2 × `interval`, ... into the file, until the
    /// movie's end (its duration, or, exactly, the last frame); asked in order, so the movie is
    /// decoded once (``Tolerance/exact``) or only its keyframes (``Tolerance/keyframe``).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for an interval that is not positive;
    ///   the errors of ``image(at:)`` and of `body`.
    public func images(every interval: MediaTime, _ body: (MediaTime, MediaSample) throws -> Void) throws {
        guard interval.isNumeric, interval > .zero else {
            throw MediaError(.invalidArgument, "an interval between images must be positive, not \(interval)")
        }
        var time = MediaTime.zero
        while !duration.isNumeric || time < duration {
            let picture: MediaSample
            switch Result(catching: { () throws(MediaError) in try image(at: time) }) {
            case .success(let taken): picture = taken
            case .failure(let error):
                // The duration reaches past the last frame: the end, not an error.
                if tolerance == .exact && lastFrameEnded(before: start + time) { return }
                throw error
            }
            try body(time, picture)
            time = time + interval
        }
    }

    /// Whether the input is decoded to its end and every frame is before `target`.
    private func lastFrameEnded(before target: MediaTime) -> Bool {
        decodedToEnd && pending.isEmpty && (lastTaken.map { $0 < target } ?? true)
    }

    /// `frame` scaled and converted as asked.
    private func converted(_ frame: MediaSample) throws(MediaError) -> MediaSample {
        guard scaling != nil || pixelFormat != nil, case .video(let format) = frame.format,
            let pixels = format.pixelFormat
        else { return frame }
        let size = try Self.size(of: format, scaling)
        let target = pixelFormat ?? pixels
        if converter?.key != scaling || converter?.format != pixelFormat || converter?.stage.width != size.width
            || converter?.stage.height != size.height || converter?.stage.pixelFormat != target
        {
            converter = (scaling, pixelFormat, try VideoConverter(to: target, width: size.width, height: size.height))
        }
        var result: MediaSample?
        do {
            try converter?.stage.process(frame) { result = $0 }
        } catch let error as MediaError {
            throw error
        } catch {
            throw MediaError(.invalidData, "\(error)")
        }
        return result ?? frame
    }

    /// The size `scaling` gives a frame of `format`.
    static func size(of format: VideoFormat, _ scaling: Scaling?) throws(MediaError) -> (width: Int, height: Int) {
        switch scaling {
        case nil: return (format.width, format.height)
        case .exactly(let width, let height): return (width, height)
        case .fitting(let width, let height):
            guard width > 0, height > 0 else {
                throw MediaError(.invalidArgument, "cannot fit a picture in \(width)x\(height)")
            }
            let aspect = format.pixelAspectRatio ?? .square
            let displayWidth = Double(format.width) * Double(aspect.horizontalSpacing) / Double(aspect.verticalSpacing)
            let scale = min(1, Double(width) / displayWidth, Double(height) / Double(format.height))
            return (
                max(1, Int((displayWidth * scale).rounded())), max(1, Int((Double(format.height) * scale).rounded()))
            )
        }
    }
}

@available(*, unavailable) extension ImageGenerator: Sendable {}
