import MediaCore

/// A forward-only byte input over a file or a byte array, read in pieces so that memory stays flat
/// whatever the input's length.
///
/// Reads never trap: a read at the end returns fewer bytes (or none), and a skip past the end stops at
/// the end and says how far it got. The caller compares with ``size`` to tell truncation apart.
final class ForwardInput {
    private enum Backing {
        case file(FileInput)
        case memory([UInt8])
    }

    private let backing: Backing
    /// Bytes consumed so far: the offset of the next read.
    private(set) var position: Int64 = 0
    /// The input's total size, or `nil` when it cannot be known before reading (a pipe).
    let size: Int64?

    /// The largest piece read at once when skipping a file.
    private static let skipPieceSize = 1 << 16
    /// How much a regular file is read ahead, so that small reads (a CAF packet, a chunk header) do not
    /// each cost a system call. Pipes are not read ahead: a read there waits until it is filled.
    private static let readAheadSize = 1 << 16
    /// Bytes read ahead from the file and not yet consumed start at `bufferIndex`.
    private var buffer: [UInt8] = []
    private var bufferIndex = 0

    /// An input reading the file at `path` (`-` is standard input).
    init(path: String) throws(MediaError) {
        let file = try FileInput(path: path)
        backing = .file(file)
        size = file.size
    }

    /// An input reading `bytes`.
    init(bytes: [UInt8]) {
        backing = .memory(bytes)
        size = Int64(bytes.count)
    }

    /// Bytes left before the end, when the size is known.
    var remaining: Int64? { size.map { max(0, $0 - position) } }

    /// Up to `count` bytes from the current position; fewer only at the end of the input.
    func read(upTo count: Int) throws(MediaError) -> [UInt8] {
        var bytes: [UInt8] = []
        _ = try read(upTo: count, appendingTo: &bytes)
        return bytes
    }

    /// Appends up to `count` bytes from the current position to `bytes` (fewer only at the end of the
    /// input) and returns how many. Appending to a buffer with room allocates nothing.
    func read(upTo count: Int, appendingTo bytes: inout [UInt8]) throws(MediaError) -> Int {
        guard count > 0 else { return 0 }
        switch backing {
        case .file(let file):
            // Never ask for more than the file holds, so a large request does not allocate for nothing.
            let wanted = remaining.map { Int(clamping: min(Int64(count), $0)) } ?? count
            guard wanted > 0 else { return 0 }
            let buffered = buffer.count - bufferIndex
            if buffered == 0 && wanted >= Self.readAheadSize {
                let got = try Self.readDirectly(wanted, from: file, appendingTo: &bytes)
                position += Int64(got)
                return got
            }
            if buffered < wanted, size != nil, wanted < Self.readAheadSize {
                buffer = Array(buffer[bufferIndex...]) + (try file.read(upTo: Self.readAheadSize))
                bufferIndex = 0
            }
            let taken = min(wanted, buffer.count - bufferIndex)
            bytes.append(contentsOf: buffer[bufferIndex..<bufferIndex + taken])
            bufferIndex += taken
            var got = taken
            if got < wanted {
                let rest = try file.read(upTo: wanted - got)
                bytes.append(contentsOf: rest)
                got += rest.count
            }
            position += Int64(got)
            return got
        case .memory(let all):
            let start = Int(clamping: position)
            guard start < all.count else { return 0 }
            let end = start + min(count, all.count - start)
            bytes.append(contentsOf: all[start..<end])
            position = Int64(end)
            return end - start
        }
    }

    /// 64 KiB of zeros, for ``readDirectly(_:from:appendingTo:)``.
    private static let zeros = [UInt8](repeating: 0, count: 1 << 16)

    /// Reads up to `count` bytes from `file` straight into the end of `bytes`: a large read with nothing
    /// read ahead, so neither a temporary array nor a second copy is needed.
    private static func readDirectly(
        _ count: Int, from file: FileInput, appendingTo bytes: inout [UInt8]
    ) throws(MediaError) -> Int {
        let oldCount = bytes.count
        // Zeros appended from a zero-filled array, a block at a time: an array-to-array append is a memory
        // copy even in a debug build, where appending `repeatElement` goes element by element (reading a
        // 720p frame took a second per frame in the debug tests). No allocation when `bytes` has room.
        var left = count
        while left > 0 {
            let block = min(left, Self.zeros.count)
            bytes.append(contentsOf: Self.zeros[..<block])
            left -= block
        }
        var got = 0
        var failure: MediaError?
        bytes.withUnsafeMutableBytes { raw in
            do throws(MediaError) {
                got = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[oldCount...]))
            } catch {
                failure = error
            }
        }
        bytes.removeLast(count - got)
        if let failure { throw failure }
        return got
    }

    /// Fills `destination` from the current position (less only at the end of the input) and returns
    /// how many bytes it holds now. Nothing is allocated and nothing is zero-filled first: this is the
    /// read for a caller that keeps a buffer of its own (``/MediaBitstream/AnnexBScanner``).
    func read(into destination: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int {
        guard let target = destination.baseAddress, !destination.isEmpty else { return 0 }
        var got = 0
        switch backing {
        case .file(let file):
            got = min(buffer.count - bufferIndex, destination.count)
            if got > 0 {
                buffer.withUnsafeBytes { target.copyMemory(from: $0.baseAddress! + bufferIndex, byteCount: got) }
                bufferIndex += got
            }
            if got < destination.count {
                got += try file.read(into: UnsafeMutableRawBufferPointer(rebasing: destination[got...]))
            }
        case .memory(let all):
            let start = Int(clamping: position)
            got = max(0, min(destination.count, all.count - start))
            if got > 0 { all.withUnsafeBytes { target.copyMemory(from: $0.baseAddress! + start, byteCount: got) } }
        }
        position += Int64(got)
        return got
    }

    /// Moves to `offset` from the start (forward or back), dropping what was read ahead. A byte array
    /// stops at its end; a file may be positioned past its end, where reads return nothing.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/io`` for standard input or a pipe, which cannot seek.
    func seek(to offset: Int64) throws(MediaError) {
        switch backing {
        case .file(let file):
            try file.seek(to: offset)
            buffer.removeAll(keepingCapacity: true)
            bufferIndex = 0
            position = offset
        case .memory(let bytes):
            position = min(max(0, offset), Int64(bytes.count))
        }
    }

    /// Moves forward by `count` bytes, or to the end if it comes first. Returns how many were skipped.
    func skip(_ count: Int64) throws(MediaError) -> Int64 {
        guard count > 0 else { return 0 }
        switch backing {
        case .file(let file):
            let fromBuffer = Int(min(count, Int64(buffer.count - bufferIndex)))
            bufferIndex += fromBuffer
            position += Int64(fromBuffer)
            var skipped = Int64(fromBuffer)
            while skipped < count {
                let piece = Int(min(Int64(Self.skipPieceSize), count - skipped))
                let bytes = try file.read(upTo: piece)
                if bytes.isEmpty { break }
                skipped += Int64(bytes.count)
                position += Int64(bytes.count)
            }
            return skipped
        case .memory(let bytes):
            let skipped = min(count, max(0, Int64(bytes.count) - position))
            position += skipped
            return skipped
        }
    }
}
