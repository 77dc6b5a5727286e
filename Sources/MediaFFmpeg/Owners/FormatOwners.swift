internal import CMediaFFmpeg
import Glibc
import MediaCore

// The owners of what ContainerDemuxer allocates in libavformat: the input AVFormatContext, and for
// reading from memory or from a caller's read function the custom AVIOContext with its buffer. Like the owners in Owners.swift, each
// frees its allocation in `deinit`, is counted for leak tests, and is not Sendable.

/// Owns an `AVFormatContext` opened for reading (`avformat_open_input`, freed with
/// `avformat_close_input`). When it reads through a custom ``InputIOContext``, it keeps that alive
/// until the format context is closed (libavformat does not free a caller's `pb`).
final class InputFormatContext {
    let raw: UnsafeMutablePointer<AVFormatContext>
    private var owned: UnsafeMutablePointer<AVFormatContext>?
    /// The custom I/O the context reads through; released only after the context is closed.
    let io: InputIOContext?
    /// What interrupts a network input's blocking calls; kept until the context is closed (libavformat
    /// holds a pointer to it).
    let interrupt: NetworkInterrupt?

    /// Opens `url` (a path, or a device for libavdevice's formats) or, when `io` is given, the bytes
    /// behind it, with the input format named `formatName` (`nil` probes) and the format's private
    /// `options` (a device's `video_size`, `framerate`...: one it does not know throws
    /// ``/MediaCore/MediaError/Code/invalidArgument`` naming it). Throws the FFmpeg error of
    /// `avformat_open_input` as `MediaError` (the caller rewrites the message to name the input).
    init(
        url: String?, io: InputIOContext?, formatName: String?, options: [(String, String)] = [],
        interrupt: NetworkInterrupt? = nil
    ) throws(MediaError) {
        var format: UnsafePointer<AVInputFormat>? = nil
        if let formatName {
            guard let found = av_find_input_format(formatName) else {
                throw MediaError(
                    .invalidArgument, "libavformat has no input format named '\(formatName)'",
                    ffmpegCall: "av_find_input_format")
            }
            format = found
        }
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        if let io {
            guard let allocated = avformat_alloc_context() else {
                throw MediaError(.outOfMemory, "cannot allocate a format context", ffmpegCall: "avformat_alloc_context")
            }
            allocated.pointee.pb = io.raw
            allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
            context = allocated
        } else if let interrupt {
            guard let allocated = avformat_alloc_context() else {
                throw MediaError(.outOfMemory, "cannot allocate a format context", ffmpegCall: "avformat_alloc_context")
            }
            allocated.pointee.interrupt_callback = interrupt.callback
            context = allocated
        }
        var dictionary: OpaquePointer? = nil
        defer { av_dict_free(&dictionary) }
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        // On failure avformat_open_input frees a context we allocated and sets `context` to NULL.
        try check(
            avformat_open_input(&context, url ?? "", format, &dictionary), calling: "avformat_open_input", .invalidData)
        if let unused = av_dict_get(dictionary, "", nil, AV_DICT_IGNORE_SUFFIX) {
            let key = String(cString: unused.pointee.key)
            avformat_close_input(&context)
            throw MediaError(.invalidArgument, "the input format does not take the option '\(key)'")
        }
        guard let context else {
            throw MediaError(.outOfMemory, "avformat_open_input returned no context", ffmpegCall: "avformat_open_input")
        }
        raw = context
        owned = context
        self.io = io
        self.interrupt = interrupt
        FFmpeg.didAllocate()
    }

    deinit {
        avformat_close_input(&owned)
        FFmpeg.didFree()
    }
}

@available(*, unavailable) extension InputFormatContext: Sendable {}

/// Owns a custom `AVIOContext` an ``InputFormatContext`` reads through, and the I/O buffer it was given
/// (freed with `av_freep(&pb->buffer)` then `avio_context_free`, as libavformat's documentation says:
/// the context may have replaced the buffer by then, so it is freed through the context). It reads a
/// byte array (seekable), or calls a caller's read function (not seekable) and keeps what that threw
/// (libavformat only sees an `EIO`).
final class InputIOContext {
    let raw: UnsafeMutablePointer<AVIOContext>
    private var owned: UnsafeMutablePointer<AVIOContext>?
    /// What the C callbacks reach through `opaque`: a ``MemoryInput`` or a ``StreamInput``.
    private let input: AnyObject

    /// The size of the buffer libavformat reads through.
    static let bufferSize = 32 * 1024

    /// The error the caller's read function threw, if it did.
    var failure: MediaError? { (input as? StreamInput)?.failure }

    /// Reads `bytes`, seekable.
    convenience init(bytes: [UInt8]) throws(MediaError) {
        try self.init(input: MemoryInput(bytes: bytes), read: memoryRead, seek: memorySeek)
    }

    /// Calls `read` for bytes; not seekable.
    convenience init(read: @escaping (UnsafeMutableRawBufferPointer) throws(MediaError) -> Int) throws(MediaError) {
        try self.init(input: StreamInput(read: read), read: streamRead, seek: nil)
        raw.pointee.seekable = 0
    }

    private init(
        input: AnyObject,
        read: @escaping @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32,
        seek: (@convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64)?
    ) throws(MediaError) {
        guard let buffer = av_malloc(Self.bufferSize)?.assumingMemoryBound(to: UInt8.self) else {
            throw MediaError(
                .outOfMemory, "cannot allocate a \(Self.bufferSize)-byte I/O buffer", ffmpegCall: "av_malloc")
        }
        let opaque = Unmanaged.passUnretained(input).toOpaque()  // `input` outlives the context: it is our property
        guard let context = avio_alloc_context(buffer, Int32(Self.bufferSize), 0, opaque, read, nil, seek) else {
            av_free(buffer)
            throw MediaError(.outOfMemory, "cannot allocate an I/O context", ffmpegCall: "avio_alloc_context")
        }
        raw = context
        owned = context
        self.input = input
        FFmpeg.didAllocate()
    }

    deinit {
        if let owned { av_freep(&owned.pointee.buffer) }
        avio_context_free(&owned)
        FFmpeg.didFree()
    }
}

@available(*, unavailable) extension InputIOContext: Sendable {}

/// The bytes an ``InputIOContext`` reads, and where it is.
final class MemoryInput {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }
}

/// `read_packet` of the memory I/O context: copies up to `size` bytes; `AVERROR_EOF` at the end.
private func memoryRead(_ opaque: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ size: Int32)
    -> Int32
{
    guard let opaque, let buffer, size > 0 else { return mp_averror(EINVAL) }
    let input = Unmanaged<MemoryInput>.fromOpaque(opaque).takeUnretainedValue()
    let count = min(Int(size), input.bytes.count - input.position)
    guard count > 0 else { return mp_averror_eof() }
    input.bytes.withUnsafeBufferPointer { source in
        guard let base = source.baseAddress else { return }
        buffer.update(from: base + input.position, count: count)
    }
    input.position += count
    return Int32(count)
}

/// `seek` of the memory I/O context: `SEEK_SET`, `SEEK_CUR`, `SEEK_END`, and `AVSEEK_SIZE` (the
/// total size); a position outside the bytes is refused with `EINVAL`.
private func memorySeek(_ opaque: UnsafeMutableRawPointer?, _ offset: Int64, _ whence: Int32) -> Int64 {
    guard let opaque else { return Int64(mp_averror(EINVAL)) }
    let input = Unmanaged<MemoryInput>.fromOpaque(opaque).takeUnretainedValue()
    let count = Int64(input.bytes.count)
    let mode = whence & ~Int32(AVSEEK_FORCE)
    if mode == Int32(AVSEEK_SIZE) { return count }
    let base: Int64
    switch mode {
    case SEEK_SET: base = 0
    case SEEK_CUR: base = Int64(input.position)
    case SEEK_END: base = count
    default: return Int64(mp_averror(EINVAL))
    }
    let (target, overflow) = base.addingReportingOverflow(offset)
    guard !overflow, target >= 0, target <= count else { return Int64(mp_averror(EINVAL)) }
    input.position = Int(target)
    return target
}

/// The read function an ``InputIOContext`` calls, and the error it threw.
final class StreamInput {
    let read: (UnsafeMutableRawBufferPointer) throws(MediaError) -> Int
    var failure: MediaError?

    init(read: @escaping (UnsafeMutableRawBufferPointer) throws(MediaError) -> Int) { self.read = read }
}

/// `read_packet` of the stream I/O context: what the read function gives (at most `size` bytes);
/// `AVERROR_EOF` when it gives 0, `EIO` when it throws (the error is kept for the demuxer to throw).
private func streamRead(_ opaque: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ size: Int32)
    -> Int32
{
    guard let opaque, let buffer, size > 0 else { return mp_averror(EINVAL) }
    let input = Unmanaged<StreamInput>.fromOpaque(opaque).takeUnretainedValue()
    if input.failure != nil { return mp_averror(EIO) }
    do throws(MediaError) {
        let count = try input.read(UnsafeMutableRawBufferPointer(start: buffer, count: Int(size)))
        guard count > 0 else { return mp_averror_eof() }
        return Int32(min(count, Int(size)))
    } catch {
        input.failure = error
        return mp_averror(EIO)
    }
}
