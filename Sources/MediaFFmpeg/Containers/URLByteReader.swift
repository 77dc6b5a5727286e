internal import CMediaFFmpeg
public import MediaCore

/// Reads the bytes at a URL as libavformat's protocols fetch them: an `http(s)://` or `ftp://` file,
/// with the same timeouts, options and stop signal as a network ``ContainerDemuxer``. For readers that
/// parse bytes themselves (MediaFormats' `AudioFileSummary`, the push parsers): `media-info
/// https://…/song.mp3`. `URLSession`'s data task, without Foundation.
///
/// ```swift
/// let bytes = try URLByteReader.readAll(url: "https://example.com/song.mp3", limit: 256 << 20)
/// let summary = try AudioFileSummary(bytes: bytes)
/// ```
///
/// Errors name the URL without its user information. Not `Sendable`: read on one thread. Backed by
/// `avio_open2` and `avio_read`.
public final class URLByteReader {
    /// The URL schemes it opens.
    public static let schemes: Set<String> = ["http", "https", "ftp"]

    private let context: URLIOContext
    private let name: String
    private let readTimeout: Duration

    /// Opens `url`. `options.openTimeout` bounds the connection and the server's answer,
    /// `options.readTimeout` each read; `options.protocolOptions` go to the protocol (`user_agent`,
    /// `headers`...); `formatName` and `rtspTransport` are not used.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for another scheme or an option the
    ///   protocol does not take; ``/MediaCore/MediaError/Code/timedOut`` past the open timeout;
    ///   ``/MediaCore/MediaError/Code/cancelled`` when the stop signal was given; otherwise
    ///   ``/MediaCore/MediaError/Code/io`` with the protocol's reason (refused, 404...).
    public init(url: String, options: ContainerDemuxer.NetworkOptions = .init()) throws(MediaError) {
        FFmpeg.quietLogging()
        name = "'\(ContainerDemuxer.redacted(url))'"
        readTimeout = options.readTimeout
        let scheme = url.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        guard url.contains("://"), Self.schemes.contains(scheme) else {
            throw MediaError(
                .invalidArgument,
                "cannot read \(name): the scheme is not one of \(Self.schemes.sorted().joined(separator: ", "))")
        }
        let interrupt = NetworkInterrupt(stop: options.stop, readTimeout: ContainerDemuxer.seconds(options.readTimeout))
        interrupt.arm(seconds: ContainerDemuxer.seconds(options.openTimeout))
        defer { interrupt.disarm() }
        do throws(MediaError) {
            context = try URLIOContext(
                url: url, options: options.protocolOptions.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                interrupt: interrupt)
        } catch {
            if interrupt.isStopped { throw MediaError(.cancelled, "opening \(name) was stopped (NetworkOptions.stop)") }
            if interrupt.timedOut {
                throw MediaError(
                    .timedOut, "cannot open \(name): no answer in \(options.openTimeout) (NetworkOptions.openTimeout)")
            }
            throw MediaError(
                error.code, "cannot open \(name): \(error.message)", ffmpegCall: error.ffmpegCall,
                ffmpegCode: error.ffmpegCode)
        }
    }

    /// The size the server announced (`Content-Length`), when it did.
    public var size: Int64? {
        let size = avio_size(context.raw)
        return size >= 0 ? size : nil
    }

    /// Reads up to `buffer.count` bytes into `buffer`, waiting for some; 0 at the end (also when the
    /// stop signal was given).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/timedOut`` when nothing came within the read timeout,
    ///   ``/MediaCore/MediaError/Code/io`` with the protocol's reason, each with the byte offset reached.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int {
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), !buffer.isEmpty else { return 0 }
        let interrupt = context.interrupt
        interrupt.arm(seconds: interrupt.readTimeout)
        defer { interrupt.disarm() }
        let count = avio_read(context.raw, base, Int32(clamping: buffer.count))
        if count > 0 { return Int(count) }
        if count == mp_averror_eof() || count == 0 || interrupt.isStopped { return 0 }
        let offset = avio_tell(context.raw)
        if interrupt.timedOut {
            throw MediaError(
                .timedOut, "nothing came from \(name) in \(readTimeout) (NetworkOptions.readTimeout)",
                byteOffset: offset)
        }
        throw MediaError(
            .io, "cannot read \(name): \(FFmpeg.describe(count))", byteOffset: offset, ffmpegCall: "avio_read",
            ffmpegCode: count)
    }

    /// Every byte at `url`, up to `limit`.
    ///
    /// - Throws: as ``init(url:options:)`` and ``read(into:)``; ``/MediaCore/MediaError/Code/limitExceeded``
    ///   when the resource is longer than `limit` bytes.
    public static func readAll(
        url: String, options: ContainerDemuxer.NetworkOptions = .init(), limit: Int
    ) throws(MediaError) -> [UInt8] {
        let reader = try URLByteReader(url: url, options: options)
        if let size = reader.size, size > limit {
            throw MediaError(
                .limitExceeded,
                "\(reader.name) holds \(count: Int(clamping: size), "byte"), more than the limit of \(limit)")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let read = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(MediaError) in try reader.read(into: buffer) }
            }
            let count = try read.get()
            if count == 0 { return bytes }
            guard bytes.count + count <= limit else {
                throw MediaError(
                    .limitExceeded, "\(reader.name) is longer than the limit of \(count: limit, "byte")",
                    byteOffset: Int64(bytes.count))
            }
            bytes += chunk[0..<count]
        }
    }
}

@available(*, unavailable) extension URLByteReader: Sendable {}
