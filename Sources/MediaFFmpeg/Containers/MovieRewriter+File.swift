#if canImport(Glibc)
    import Glibc
#endif
import MediaCore

extension MovieRewriter {
    /// Rewrites the MP4 at `path`, which libavformat's mov muxer has just finished (so its `moov` is
    /// the last top-level box), in place: adds the `iTunSMPB` tag (when given) and, when asked, moves
    /// the `moov` before the first `mdat`.
    ///
    /// Moving shifts everything from the first `mdat` to the old `moov` forward by the new `moov`'s
    /// size, backwards in 1 MiB chunks through one buffer, and writes the `moov` into the gap: the same
    /// work as ffmpeg's `-movflags +faststart` (`shift_data` in `movenc.c`), which also rewrites its
    /// file in place. A copy into a new file and a rename would leave the original untouched on
    /// failure, but costs the kernel fresh page-cache pages and fresh file-system blocks for every
    /// byte: three times the CLI's time on a 1 GB remux. The space the file grows by is reserved
    /// (`posix_fallocate`) before anything moves, so a full disk stops the rewrite while the file is
    /// still the valid one libavformat wrote; after that every write lands on allocated blocks, and
    /// only a failing device can interrupt it, as it can interrupt the CLI's.
    static func rewriteFile(path: String, tag: String?, moveMovieToFront: Bool) throws(MediaError) {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            throw MediaError(.io, "cannot reopen \(path) to finish it: \(String(cString: strerror(errno)))")
        }
        defer { _ = close(fd) }
        guard let size = fileSize(path) else { throw MediaError(.io, "cannot read the size of \(path)") }

        let top = try topLevelBoxes(fd, size: size, path: path)
        guard let movie = top.last, movie.type == "moov", let mdat = top.first(where: { $0.type == "mdat" }) else {
            throw MediaError.invalidData(
                "\(path) does not end with a moov box after an mdat (boxes: \(top.map(\.type).joined(separator: ", ")))"
            )
        }
        let moving = moveMovieToFront && mdat.start < movie.start
        guard moving || tag != nil else { return }
        let moov = try readBytes(fd, at: Int64(movie.start), count: movie.end - movie.start, path: path)
        let pair = tag.map { (name: "iTunSMPB", value: $0) }

        // The moov's new size does not depend on the shift; everything from the first mdat on moves by it.
        let newMovieSize = try editedMovie(moov, tag: pair, shift: { $0 }).count
        let moved =
            moving
            ? (start: Int64(mdat.start), end: Int64(movie.start), by: Int64(newMovieSize)) : (start: 0, end: 0, by: 0)
        let edited = try editedMovie(
            moov, tag: pair, shift: { $0 >= moved.start && $0 < moved.end ? $0 + moved.by : $0 })
        let newSize = Int64(movie.start) + Int64(edited.count)

        if newSize > size {
            let code = posix_fallocate(fd, off_t(size), off_t(newSize - size))
            guard code == 0 else {
                throw MediaError(
                    .io,
                    "cannot grow \(path) by \(count: newSize - size, "byte") to finish it: \(String(cString: strerror(code)))"
                )
            }
        }
        if moving {
            try shiftForward(fd, from: moved.start, to: moved.end, by: moved.by, path: path)
        }
        let movieAt = moving ? moved.start : Int64(movie.start)
        let failure: MediaError? = edited.withUnsafeBytes { raw in
            do throws(MediaError) { try writeAll(fd, raw, at: movieAt, path: path) } catch { return error }
            return nil
        }
        if let failure { throw failure }
        if newSize < size, ftruncate(fd, off_t(newSize)) != 0 {
            throw MediaError(
                .io, "cannot truncate \(path) to \(count: newSize, "byte"): \(String(cString: strerror(errno)))")
        }
    }

    /// The top-level boxes of the file, from their headers.
    private static func topLevelBoxes(_ fd: Int32, size: Int64, path: String) throws(MediaError) -> [Box] {
        var top: [Box] = []
        var offset: Int64 = 0
        while offset < size {
            let header = try readBytes(fd, at: offset, count: Int(min(16, size - offset)), path: path)
            guard header.count >= 8 else {
                throw MediaError.truncated("MP4 box header", needed: 8, available: header.count, at: offset)
            }
            var boxSize = Int64(readUInt32(header, 0))
            var headerSize: Int64 = 8
            if boxSize == 1, header.count >= 16 {
                boxSize = Int64(clamping: readUInt64(header, 8))
                headerSize = 16
            } else if boxSize == 0 {
                boxSize = size - offset
            }
            guard boxSize >= headerSize, boxSize <= size - offset else {
                throw MediaError.invalidData(
                    "top-level box of \(count: boxSize, "byte") in \(path) runs past its end", at: offset)
            }
            top.append(
                Box(
                    type: fourCC(header, 4), start: Int(offset), payloadStart: Int(offset + headerSize),
                    end: Int(offset + boxSize)))
            offset += boxSize
        }
        return top
    }

    /// Moves the bytes `start..<end` of the file to `start + distance`, last chunk first, so that no
    /// byte is overwritten before it has been read.
    private static func shiftForward(_ fd: Int32, from start: Int64, to end: Int64, by distance: Int64, path: String)
        throws(MediaError)
    {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 64)
        defer { buffer.deallocate() }
        var top = end
        while top > start {
            let bottom = max(start, top - Int64(chunk))
            let piece = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(top - bottom)])
            try readAll(fd, into: piece, at: bottom, path: path)
            try writeAll(fd, UnsafeRawBufferPointer(piece), at: bottom + distance, path: path)
            top = bottom
        }
    }

    /// `count` bytes (fewer at the end of the file) at `offset`.
    static func readBytes(_ fd: Int32, at offset: Int64, count: Int, path: String) throws(MediaError) -> [UInt8] {
        var done = 0
        let bytes = try [UInt8](unsafeUninitializedCapacity: count) { (raw, initialized) throws(MediaError) in
            defer { initialized = done }
            guard let base = raw.baseAddress else { return }
            while done < count {
                let n = try POSIXCall.check("pread", path: path, at: offset + Int64(done)) {
                    pread(fd, base + done, count - done, off_t(offset) + off_t(done))
                }
                if n == 0 { break }
                done += n
            }
        }
        return bytes
    }

    /// Fills `buffer` from `offset`; throws when the file ends first.
    private static func readAll(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String)
        throws(MediaError)
    {
        guard let base = buffer.baseAddress else { return }
        try repeatUntilDone(buffer.count, at: offset, "\(path) ended early while rewriting it") {
            (done) throws(MediaError) in
            try POSIXCall.check("pread", path: path, at: offset + Int64(done)) {
                pread(fd, base + done, buffer.count - done, off_t(offset) + off_t(done))
            }
        }
    }

    /// Writes all of `bytes` at `offset`.
    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64, path: String)
        throws(MediaError)
    {
        guard let base = bytes.baseAddress else { return }
        try repeatUntilDone(bytes.count, at: offset, "pwrite on \(path) wrote nothing") { (done) throws(MediaError) in
            try POSIXCall.check("pwrite", path: path, at: offset + Int64(done)) {
                pwrite(fd, base + done, bytes.count - done, off_t(offset) + off_t(done))
            }
        }
    }

    /// Calls `move` with the count done so far until `count` bytes are done; `move` returns how many it
    /// moved, and none is an error (`stalled`, at the offset reached).
    private static func repeatUntilDone(
        _ count: Int, at offset: Int64, _ stalled: @autoclosure () -> String,
        _ move: (Int) throws(MediaError) -> Int
    ) throws(MediaError) {
        var done = 0
        while done < count {
            let n = try move(done)
            guard n > 0 else { throw MediaError(.io, stalled(), byteOffset: offset + Int64(done)) }
            done += n
        }
    }
}
