#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An output to a file or to standard output, buffered in 64 KiB blocks.
///
/// A regular file is seekable (``isSeekable``), so muxers can patch sizes at `finish`; standard output
/// and pipes are not. The file descriptor is closed by ``close()`` or when the output is released.
public final class FileOutput: MediaOutput {
    private var fd: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private var flushedBytes: Int64 = 0
    private let bufferCapacity = 1 << 16
    /// The path written, or `-` for standard output.
    public let path: String
    /// Whether the output can patch bytes already written.
    public let isSeekable: Bool

    /// Creates (or truncates) the file at `path`. The path `-` means standard output.
    public init(path: String) throws(MediaError) {
        self.path = path
        if path == "-" {
            fd = 1
            ownsDescriptor = false
        } else {
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw MediaError(.io, "cannot create \(path): \(String(cString: strerror(errno)))")
            }
            ownsDescriptor = true
        }
        var info = stat()
        let isFile = fstat(fd, &info) == 0
        isSeekable = isFile && (info.st_mode & S_IFMT) == S_IFREG
        if isFile && (info.st_mode & S_IFMT) == S_IFIFO { Self.enlargePipe(fd) }
        buffer.reserveCapacity(bufferCapacity)
    }

    /// Asks Linux for a 1 MiB pipe buffer (the default `pipe-max-size`) instead of the default 64 KiB,
    /// so that a writer faster than its reader blocks once per megabyte rather than once per 64 KiB
    /// block: `mux-benchmark annexb in.h264 - | cat > /dev/null` took 0.19 s on 154 MB with the
    /// default pipe and 0.09 s with this one. Data is readable as soon as it is written either way, so a live reader waits no
    /// longer. Best effort: an unprivileged process may be refused a size above the limit, and the
    /// pipe then stays as it was.
    private static func enlargePipe(_ fd: Int32) {
        #if os(Linux)
            _ = fcntl(fd, 1031 /* F_SETPIPE_SZ */, Int32(1 << 20))
        #endif
    }

    /// An output to standard output.
    public static func standardOutput() throws(MediaError) -> FileOutput { try FileOutput(path: "-") }

    deinit {
        if fd >= 0 {
            try? flush()
            if ownsDescriptor { _ = Glibc.close(fd) }
        }
    }

    /// Bytes written so far (buffered or not).
    public var position: Int64 { flushedBytes + Int64(buffer.count) }

    /// Appends bytes, writing through when the buffer is full.
    public func write(_ raw: UnsafeRawBufferPointer) throws(MediaError) {
        guard fd >= 0 else { throw MediaError(.io, "write to \(path) after close") }
        if buffer.count + raw.count > bufferCapacity { try flush() }
        if raw.count >= bufferCapacity {
            try writeAll(raw)
        } else {
            buffer.append(contentsOf: raw)
        }
    }

    /// Replaces bytes at `offset` (flushing first). Throws on standard output and pipes.
    public func overwrite(_ bytes: [UInt8], at offset: Int64) throws(MediaError) {
        guard isSeekable else {
            throw MediaError(
                .unsupportedFormat, "cannot seek back to offset \(offset) in \(path): it is not a regular file")
        }
        try flush()
        var done = 0
        while done < bytes.count {
            let at = offset + Int64(done)
            var failure: MediaError?
            let n = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                do throws(MediaError) {
                    return try POSIXCall.check("pwrite", path: path, at: at) {
                        pwrite(fd, base + done, raw.count - done, off_t(at))
                    }
                } catch {
                    failure = error
                    return 0
                }
            }
            if let failure { throw failure }
            guard n > 0 else {
                throw MediaError(.io, "pwrite on \(path) wrote nothing", byteOffset: at)
            }
            done += n
        }
    }

    /// Writes the buffer to the file.
    public func flush() throws(MediaError) {
        guard !buffer.isEmpty else { return }
        var failure: MediaError?
        buffer.withUnsafeBytes { raw in
            do throws(MediaError) { try writeAll(raw) } catch { failure = error }
        }
        // Emptied after the write, so that the buffer is not shared and keeps its capacity: no allocation.
        buffer.removeAll(keepingCapacity: true)
        if let failure { throw failure }
    }

    /// Flushes and closes the file.
    public func close() throws(MediaError) {
        guard fd >= 0 else { return }
        defer {
            if ownsDescriptor { _ = Glibc.close(fd) }
            fd = -1
        }
        try flush()
    }

    private func writeAll(_ raw: UnsafeRawBufferPointer) throws(MediaError) {
        guard let base = raw.baseAddress else { return }
        var done = 0
        while done < raw.count {
            let n = try POSIXCall.check("write", path: path, at: flushedBytes) {
                Glibc.write(fd, base + done, raw.count - done)
            }
            guard n > 0 else {
                throw MediaError(.io, "write on \(path) wrote nothing", byteOffset: flushedBytes)
            }
            done += n
            flushedBytes += Int64(n)
        }
    }
}

/// Reads a file front to back in chunks, for the readers in MediaFormats.
public final class FileInput {
    private var fd: Int32
    /// The path read.
    public let path: String
    /// The file's size in bytes when it was opened, or `nil` for a pipe.
    public let size: Int64?
    /// Bytes read so far.
    public private(set) var position: Int64 = 0

    /// Opens `path` for reading; `-` means standard input.
    public init(path: String) throws(MediaError) {
        self.path = path
        if path == "-" {
            fd = 0
        } else {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw MediaError(.io, "cannot open \(path): \(String(cString: strerror(errno)))") }
        }
        var info = stat()
        size = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : nil
    }

    deinit { if fd > 0 { _ = Glibc.close(fd) } }

    /// Up to `count` bytes; an empty array at the end of the file.
    public func read(upTo count: Int) throws(MediaError) -> [UInt8] {
        guard fd >= 0, count > 0 else { return [] }
        var filled = 0
        return try [UInt8](unsafeUninitializedCapacity: count) { (raw, initialized) throws(MediaError) in
            defer { initialized = filled }
            guard let base = raw.baseAddress else { return }
            while filled < count {
                let n = try POSIXCall.check("read", path: path, at: position) {
                    Glibc.read(fd, base + filled, count - filled)
                }
                if n == 0 { break }
                filled += n
                position += Int64(n)
            }
        }
    }

    /// Reads into `destination` until it is full or the file ends, and returns how many bytes were read
    /// (0 at the end of the file). Unlike ``read(upTo:)`` it allocates nothing.
    public func read(into destination: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int {
        guard fd >= 0, let base = destination.baseAddress else { return 0 }
        var filled = 0
        while filled < destination.count {
            let n = try POSIXCall.check("read", path: path, at: position) {
                Glibc.read(fd, base + filled, destination.count - filled)
            }
            if n == 0 { break }
            filled += n
            position += Int64(n)
        }
        return filled
    }

    /// Moves to `offset` from the start of the file, so that the next read starts there.
    ///
    /// - Throws: ``MediaError/Code/io`` for standard input, a pipe, or a failing `lseek`.
    public func seek(to offset: Int64) throws(MediaError) {
        guard size != nil, offset >= 0 else {
            throw MediaError(
                .io,
                "cannot seek \(path) to \(offset): \(size == nil ? "it is not a regular file" : "a negative offset")")
        }
        guard lseek(fd, off_t(offset), SEEK_SET) == off_t(offset) else {
            throw MediaError(.io, "cannot seek \(path) to \(offset): \(String(cString: strerror(errno)))")
        }
        position = offset
    }

    /// The whole rest of the file.
    public func readAll() throws(MediaError) -> [UInt8] {
        var all: [UInt8] = []
        while true {
            let chunk = try read(upTo: 1 << 20)
            if chunk.isEmpty { return all }
            all.append(contentsOf: chunk)
        }
    }
}
