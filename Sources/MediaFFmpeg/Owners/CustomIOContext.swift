internal import CMediaFFmpeg
import MediaCore

/// Owns an `AVIOContext` over a ``/MediaCore/MediaOutput`` (`avio_alloc_context` with callbacks) and its
/// I/O buffer (`av_malloc`); frees both in `deinit` (`av_freep` of the context's current buffer, which
/// libavformat may have replaced, then `avio_context_free`).
///
/// libavformat writes through the context's buffer; a full buffer comes to ``OutputBridge/write``. A
/// seekable output gets a seek callback, so the muxer can patch sizes (the `mdat` size); a write before
/// the output's end becomes ``/MediaCore/MediaOutput/overwrite(_:at:)``.
final class CustomIOContext {
    let raw: UnsafeMutablePointer<AVIOContext>
    private var owned: UnsafeMutablePointer<AVIOContext>?
    /// The output and the position libavformat believes it is at.
    let bridge: OutputBridge

    private static let bufferSize: Int32 = 1 << 16

    init(output: any MediaOutput) throws(MediaError) {
        bridge = OutputBridge(output: output)
        guard let buffer = av_malloc(Int(Self.bufferSize)) else {
            throw MediaError(.outOfMemory, "cannot allocate an I/O buffer", ffmpegCall: "av_malloc")
        }
        let opaque = Unmanaged.passUnretained(bridge).toOpaque()
        let seek: (@convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64)? =
            output.isSeekable ? customIOSeek : nil
        guard
            let context = avio_alloc_context(
                buffer.assumingMemoryBound(to: UInt8.self), Self.bufferSize, 1, opaque, nil, customIOWrite, seek)
        else {
            var pointer: UnsafeMutableRawPointer? = buffer
            av_freep(&pointer)
            throw MediaError(.outOfMemory, "cannot allocate an I/O context", ffmpegCall: "avio_alloc_context")
        }
        context.pointee.seekable = output.isSeekable ? AVIO_SEEKABLE_NORMAL : 0
        raw = context
        owned = context
        FFmpeg.didAllocate()
    }

    /// Writes out what is buffered; throws the output's error if a write failed.
    func flush() throws(MediaError) {
        avio_flush(raw)
        if let failure = bridge.failure { throw failure }
        if raw.pointee.error < 0 {
            throw MediaError.ffmpeg(raw.pointee.error, calling: "avio_flush", .io)
        }
    }

    deinit {
        if let context = owned {
            withUnsafeMutablePointer(to: &context.pointee.buffer) { buffer in
                buffer.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 1) { av_freep($0) }
            }
        }
        avio_context_free(&owned)
        FFmpeg.didFree()
    }
}

@available(*, unavailable) extension CustomIOContext: Sendable {}

/// What the C callbacks of a ``CustomIOContext`` reach through their `opaque` pointer.
final class OutputBridge {
    let output: any MediaOutput
    /// The output's position when the muxer started: libavformat's offset 0. (An output may already
    /// hold bytes; libavformat's offsets are relative to where its file begins.)
    let base: Int64
    /// Where libavformat's next write goes, relative to ``base``.
    private(set) var position: Int64 = 0
    /// Bytes written since ``base``: the size of the file libavformat sees.
    var size: Int64 { output.position - base }
    /// The first error the output threw; libavformat only sees `AVERROR(EIO)`.
    private(set) var failure: MediaError?
    /// While set, every byte written at or after this offset is also kept in ``captured`` (at its
    /// offset minus this one): to read back the `moov` a trailer writes.
    var captureStart: Int64?
    /// The bytes written at or after ``captureStart``.
    private(set) var captured: [UInt8] = []

    init(output: any MediaOutput) {
        self.output = output
        base = output.position
    }

    /// Writes `bytes` at ``position``: overwriting what is before the output's end, appending the rest.
    func write(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard failure == nil else { return mp_averror(EIO) }
        do throws(MediaError) {
            if let captureStart, position + Int64(bytes.count) > captureStart {
                let skip = Int(max(0, captureStart - position))
                let at = Int(position + Int64(skip) - captureStart)
                let part = bytes[skip...]
                if captured.count < at + part.count {
                    captured += repeatElement(0, count: at + part.count - captured.count)
                }
                captured.replaceSubrange(at..<at + part.count, with: part)
            }
            let end = size
            var rest = bytes[...]
            if position < end {
                let count = Int(min(Int64(rest.count), end - position))
                try output.overwrite(Array(rest.prefix(count)), at: base + position)
                rest = rest.dropFirst(count)
            } else if position > end {
                // A seek past the end: fill the gap with zeros, as a file would read it.
                try output.write([UInt8](repeating: 0, count: Int(position - end)))
            }
            if !rest.isEmpty { try output.write(UnsafeRawBufferPointer(rebasing: rest)) }
            position += Int64(bytes.count)
            return Int32(bytes.count)
        } catch {
            failure = error
            return mp_averror(EIO)
        }
    }

    /// Moves ``position`` as `lseek` would (`whence` SEEK_SET, SEEK_CUR, SEEK_END), or answers
    /// `AVSEEK_SIZE` with the output's size.
    func seek(_ offset: Int64, whence: Int32) -> Int64 {
        switch whence & ~AVSEEK_FORCE {
        case AVSEEK_SIZE: return size
        case SEEK_SET: position = offset
        case SEEK_CUR: position += offset
        case SEEK_END: position = max(size, position) + offset
        default: return Int64(mp_averror(EINVAL))
        }
        if position < 0 {
            position = 0
            return Int64(mp_averror(EINVAL))
        }
        return position
    }
}

@available(*, unavailable) extension OutputBridge: Sendable {}

private func customIOWrite(_ opaque: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ size: Int32)
    -> Int32
{
    guard let opaque else { return mp_averror(EINVAL) }
    let bridge = Unmanaged<OutputBridge>.fromOpaque(opaque).takeUnretainedValue()
    guard let buffer, size > 0 else { return 0 }
    return bridge.write(UnsafeRawBufferPointer(start: buffer, count: Int(size)))
}

private func customIOSeek(_ opaque: UnsafeMutableRawPointer?, _ offset: Int64, _ whence: Int32) -> Int64 {
    guard let opaque else { return Int64(mp_averror(EINVAL)) }
    return Unmanaged<OutputBridge>.fromOpaque(opaque).takeUnretainedValue().seek(offset, whence: whence)
}
