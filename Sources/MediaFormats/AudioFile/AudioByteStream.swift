public import MediaCore

/// The bytes of an audio file as they arrive (a download, a socket), pushed by one thread and read as a
/// file by an ``AudioFileReader`` on another: what `AudioFileStream` is for on Apple's platforms, with
/// the reader's samples, trims and exact seeking on top.
///
/// ```swift
/// let stream = AudioByteStream(name: "https://example.com/song.mp3")
/// downloadThread { chunk in stream.push(chunk) } onEnd: { stream.finish() }
/// let reader = try AudioFileReader(stream: stream)     // returns once the header has arrived
/// while let packet = try reader.next() { try decoder.process(packet, into: play) }
/// ```
///
/// - Every byte pushed is kept, so a reader can seek back at once; a read beyond what has arrived
///   waits for it. Memory grows with the stream: about 1 MB a minute of a 128 kb/s MP3.
/// - A read waits until at least one byte is there, and returns what is there (up to what it asked):
///   a reader starts as soon as the first packets have arrived, not when its buffer is full.
/// - ``finish()`` ends the stream: reads past the last byte return nothing, as at the end of a file.
///   ``cancel()`` makes every read, waiting or not, throw ``/MediaCore/MediaError/Code/cancelled``.
///
/// Any thread may push, finish, cancel and read.
public final class AudioByteStream: @unchecked Sendable {
    // Sendable by hand: every stored `var` below is read and written only with `mutex` held (each method
    // locks it around its accesses), and waiting readers sleep on `changed`, which is signalled under it.
    private let mutex = PthreadMutex()
    private let changed = PthreadCondition()
    private var bytes: [UInt8] = []
    private var finished = false
    private var cancelled = false

    /// What errors call the stream: a URL or file name.
    public let name: String

    /// An empty stream called `name` in errors.
    public init(name: String = "pushed audio stream") { self.name = name }

    /// Appends `chunk` to the stream; ignored after ``finish()`` or ``cancel()``.
    public func push(_ chunk: some Collection<UInt8>) {
        locked {
            guard !finished, !cancelled, !chunk.isEmpty else { return }
            bytes.append(contentsOf: chunk)
            changed.broadcast()
        }
    }

    /// Says that no more bytes will come: readers see the end of the file after the last one.
    public func finish() {
        locked {
            finished = true
            changed.broadcast()
        }
    }

    /// Gives up on the stream: every read throws ``/MediaCore/MediaError/Code/cancelled`` from now on,
    /// waking those that wait.
    public func cancel() {
        locked {
            cancelled = true
            changed.broadcast()
        }
    }

    /// The bytes pushed so far.
    public var count: Int64 { locked { Int64(bytes.count) } }

    /// Whether ``finish()`` has been called.
    public var isFinished: Bool { locked { finished } }

    /// Copies the bytes from `offset` into `destination`, waiting until at least one is there; 0 at the
    /// end of a finished stream.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/cancelled`` after ``cancel()``.
    func read(at offset: Int64, into destination: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int {
        try locked { () throws(MediaError) -> Int in
            while !cancelled, !finished, Int64(bytes.count) <= offset { changed.wait(mutex) }
            guard !cancelled else { throw MediaError(.cancelled, "\(name) was cancelled", byteOffset: offset) }
            guard offset < Int64(bytes.count) else { return 0 }
            let start = Int(offset)
            let count = min(destination.count, bytes.count - start)
            bytes.withUnsafeBytes { source in
                destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<(start + count)]))
            }
            return count
        }
    }

    private func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        mutex.lock()
        defer { mutex.unlock() }
        return try body()
    }
}

/// Where ``AudioFileReader`` reads: a file (``/MediaCore/FileInput``) or an ``AudioByteStream``.
protocol AudioReaderInput: AnyObject {
    /// The file's name for errors.
    var path: String { get }
    /// The file's size when known before its end (a regular file): the reader then hops over audio held
    /// for a late chunk.
    var size: Int64? { get }
    /// The offset of the next byte read.
    var position: Int64 { get }
    /// Reads the next bytes into `destination`; 0 at the end.
    func read(into destination: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int
    /// Moves to `offset`.
    func seek(to offset: Int64) throws(MediaError)
}

extension FileInput: AudioReaderInput {}

/// A reader's position in an ``AudioByteStream``.
final class AudioByteStreamInput: AudioReaderInput {
    private let stream: AudioByteStream
    private(set) var position: Int64 = 0

    init(_ stream: AudioByteStream) { self.stream = stream }

    var path: String { stream.name }
    /// Unknown: the stream is read front to back, and held audio is held.
    var size: Int64? { nil }

    func read(into destination: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int {
        let count = try stream.read(at: position, into: destination)
        position += Int64(count)
        return count
    }

    func seek(to offset: Int64) throws(MediaError) {
        guard offset >= 0 else {
            throw MediaError(.invalidArgument, "\(stream.name): cannot seek to byte offset \(offset)")
        }
        position = offset
    }
}
