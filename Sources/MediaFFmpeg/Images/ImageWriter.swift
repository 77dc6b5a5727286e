import Glibc
public import MediaCore

/// Writes raw video frames as PNG or JPEG files: one file per frame (a numbered pattern) or one named
/// file that always holds the latest frame. The sink behind `thumbnails` and a recorder's snapshots:
/// FFmpeg's `image2` muxer, GStreamer's `multifilesink` after `pngenc`.
///
/// ```swift
/// let frames = try ImageWriter(path: "frames/%03d.png")   // frames/001.png, frames/002.png, ...
/// let latest = try ImageWriter(path: "latest.jpg")        // replaced by each frame
/// ```
///
/// - Naming: a path with one `%d` or `%0Nd` (`%%` is a literal `%`) is a pattern: frame *i* (from
///   `startNumber`, 1 by default, as FFmpeg's `image2` numbers) goes to the path with that number. Any
///   other path is one file that each frame replaces, as `ffmpeg -update 1` writes it.
/// - Every file is written whole and then renamed into place, so a reader (a web server showing the
///   latest snapshot) never sees half a picture, and a failure leaves the files written before it as
///   they were.
/// - Format: the path's extension (`.png`, `.jpg`, `.jpeg`) unless `format` says. Pixels are encoded as
///   ``ImageEncoder`` encodes them.
///
/// Throws ``/MediaCore/MediaError/Code/invalidArgument`` from `init` for a pattern with more than one
/// number or an unknown `%` directive, or a path whose extension names no image format when `format` is
/// not given; ``/MediaCore/MediaError/Code/io`` naming the file when one cannot be written; the encoder's
/// errors for a frame it cannot take (nothing of that frame is written). Not thread-safe.
public final class ImageWriter: MediaSink {
    /// The path or pattern given.
    public let path: String
    /// The file format written.
    public let format: ImageFileFormat
    /// The number the first frame's file gets, when ``path`` is a pattern.
    public let startNumber: Int
    /// Files written so far.
    public private(set) var frameCount: Int64 = 0
    /// The last file written, if any.
    public private(set) var lastPath: String?

    private let pattern: NumberedPath?
    private let encoder: ImageEncoder

    /// A writer of `format` (by default, what `path`'s extension says) to `path`, a numbered pattern or
    /// one file; see the type's documentation.
    public init(path: String, format: ImageFileFormat? = nil, startNumber: Int = 1) throws(MediaError) {
        guard let format = format ?? ImageFileFormat(pathExtension: path) else {
            throw MediaError(
                .invalidArgument, "cannot tell the image format of '\(path)': name it .png, .jpg or .jpeg")
        }
        self.path = path
        self.format = format
        self.startNumber = startNumber
        pattern = try NumberedPath(path)
        encoder = try ImageEncoder(format: format)
    }

    /// The name used in errors.
    public var name: String { "ImageWriter" }

    /// Writes one frame's file.
    public func write(_ sample: MediaSample) throws(MediaError) {
        let bytes = try encoder.encode(sample)
        let file = pattern?.path(number: startNumber + Int(frameCount)) ?? path
        try Self.replace(file, with: bytes)
        frameCount += 1
        lastPath = file
    }

    /// Nothing is pending: every file is whole once ``write(_:)`` returns.
    public func finish() throws(MediaError) {}

    /// Writes `bytes` to `file` through a temporary file beside it, renamed into place.
    static func replace(_ file: String, with bytes: [UInt8]) throws(MediaError) {
        let partial = file + ".partial"
        do throws(MediaError) {
            let output = try FileOutput(path: partial)
            let count = bytes.count
            try bytes.withUnsafeBufferPointer { (buffer) throws(MediaError) in
                try output.write(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
            }
            try output.close()
        } catch {
            unlink(partial)
            throw MediaError(error.code, "cannot write the image '\(file)': \(error.message)")
        }
        if rename(partial, file) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw MediaError(.io, "cannot write the image '\(file)': \(reason)")
        }
    }
}

@available(*, unavailable) extension ImageWriter: Sendable {}

/// A path with one `%d` or `%0Nd` in it (`%%` a literal `%`), as FFmpeg's `image2` takes it.
struct NumberedPath: Sendable, Hashable {
    private let prefix: String
    private let suffix: String
    private let width: Int

    /// `nil` for a path without a number; throws for two numbers or a `%` that is not `%d`, `%0Nd`, `%%`.
    init?(_ path: String) throws(MediaError) {
        var prefix = ""
        var suffix = ""
        var width: Int?
        var characters = path[...]
        while let character = characters.popFirst() {
            guard character == "%" else {
                if width == nil { prefix.append(character) } else { suffix.append(character) }
                continue
            }
            if characters.first == "%" {
                characters.removeFirst()
                if width == nil { prefix.append("%") } else { suffix.append("%") }
                continue
            }
            let digits = characters.prefix { $0.isASCII && $0.isNumber }
            characters = characters.dropFirst(digits.count)
            guard characters.popFirst() == "d", digits.isEmpty || digits.first == "0",
                let parsed = digits.isEmpty ? 0 : Int(digits), parsed <= 32
            else {
                throw MediaError(.invalidArgument, "'\(path)' has a % that is not %d, %0Nd or %%")
            }
            guard width == nil else {
                throw MediaError(.invalidArgument, "'\(path)' has more than one frame number (%d)")
            }
            width = parsed
        }
        guard let width else { return nil }
        (self.prefix, self.suffix, self.width) = (prefix, suffix, width)
    }

    /// The path for frame `number`.
    func path(number: Int) -> String {
        let digits = String(number)
        return prefix + String(repeating: "0", count: max(0, width - digits.count)) + digits + suffix
    }
}
