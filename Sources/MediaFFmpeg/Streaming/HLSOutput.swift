internal import CMediaFFmpeg
import Glibc
import MediaCore
import MediaStreaming
import Synchronization

/// The folder side of an HLS ``ContainerMuxer``: checks and creates the playlist's folder, sets the
/// `hls` muxer's options, and sees every file the muxer opens through the format context's `io_open`
/// and `io_close2` callbacks (libavformat's `hls` muxer opens the playlist, the init segment and each
/// media segment itself; there is no `pb` to own). It counts the bytes of the segments closed so far
/// and keeps the first file that could not be opened or closed, for errors that name it.
///
/// The callbacks reach this object through `AVFormatContext.opaque` (an unretained pointer); the
/// ``OutputFormatContext`` keeps it alive until `avformat_free_context` has run, since freeing an
/// unfinished `hls` muxer closes its open files through the same callbacks.
final class HLSOutput: Sendable {
    /// The playlist's path as given.
    let playlist: String
    let settings: HLSOptions
    /// The folder, without a trailing slash (`.` for a bare file name).
    let folder: String
    /// The playlist's file name without its extension: segments are `<stem><n>.ts`/`.m4s`.
    let stem: String

    private struct State {
        /// Files open now, by their I/O context's address: the path and whether it is a segment (not a
        /// playlist).
        var open: [UInt: (url: String, isSegment: Bool)] = [:]
        /// The first file that failed and FFmpeg's code.
        var failure: (url: String, code: CInt)?
    }

    private let state = Locked(State())
    private let segmentBytes = Atomic<Int64>(0)

    /// Validates `settings` and makes sure the folder of `playlist` exists (created with its parents
    /// when missing) and can be written.
    init(playlist: String, settings: HLSOptions) throws(MediaError) {
        _ = try settings.targetMicroseconds
        if case .live(let size) = settings.playlist, size < 1 {
            throw MediaError(.invalidArgument, "an HLS live window of \(size) segments; it needs at least one")
        }
        let slash = playlist.lastIndex(of: "/")
        let name = slash.map { String(playlist[playlist.index(after: $0)...]) } ?? playlist
        guard !name.isEmpty, name != ".", name != ".." else {
            throw MediaError(.invalidArgument, "\(playlist) names a folder, not an HLS playlist (…/name.m3u8)")
        }
        // The segments' names are a template (`<folder>/<stem>%d.ts`) in which libavformat replaces every
        // `%d` and `%0Nd` and has no escape for a literal `%`.
        guard !playlist.contains("%") else {
            throw MediaError(
                .invalidArgument,
                "\(playlist): an HLS playlist path cannot hold %, which libavformat reads in segment names as a number")
        }
        self.playlist = playlist
        self.settings = settings
        folder = slash.map { $0 == playlist.startIndex ? "/" : String(playlist[..<$0]) } ?? "."
        stem = name.lastIndex(of: ".").map { $0 == name.startIndex ? name : String(name[..<$0]) } ?? name
        try Self.makeFolder(folder, for: playlist)
    }

    /// Bytes of the media and init segments closed so far.
    var bytesWritten: Int64 { segmentBytes.load(ordering: .relaxed) }

    /// The first file that could not be opened, written or closed, with FFmpeg's code.
    var failure: (url: String, code: CInt)? { state.withLock { $0.failure } }

    /// An I/O error naming the file that failed, or the playlist, with `what` was being done.
    func error(_ what: String, code: CInt, call: StaticString) -> MediaError {
        let (url, failed) = failure ?? (playlist, code)
        return MediaError(
            .io, "\(what) HLS \(url): \(FFmpeg.describe(failed))", ffmpegCall: "\(call)", ffmpegCode: failed)
    }

    /// Gives the `hls` muxer the playlist's path and routes its file I/O through this object.
    func attach(to context: OutputFormatContext) throws(MediaError) {
        // A relative path whose first part holds a colon would read as a protocol (`a:b/x.m3u8`).
        let url = playlist.hasPrefix("/") || playlist.hasPrefix(".") ? playlist : "./" + playlist
        guard let copy = av_strdup(url) else {
            throw MediaError(.outOfMemory, "cannot copy the path \(playlist)", ffmpegCall: "av_strdup")
        }
        let ctx = context.raw
        ctx.pointee.url = copy  // freed by avformat_free_context
        context.keepAlive = self
        ctx.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        ctx.pointee.io_open = { s, pb, url, flags, options in
            guard let s, let pb, let url, let opaque = s.pointee.opaque else { return -EINVAL }
            let output = Unmanaged<HLSOutput>.fromOpaque(opaque).takeUnretainedValue()
            let code = avio_open2(pb, url, flags, &s.pointee.interrupt_callback, options)
            output.opened(pb.pointee, url: String(cString: url), code: code)
            return code
        }
        ctx.pointee.io_close2 = { s, pb in
            guard let pb else { return 0 }
            let output = s?.pointee.opaque.map { Unmanaged<HLSOutput>.fromOpaque($0).takeUnretainedValue() }
            let written = avio_tell(pb)
            var owned: UnsafeMutablePointer<AVIOContext>? = pb
            let code = avio_closep(&owned)
            output?.closed(pb, written: written, code: code)
            return code
        }
    }

    private func opened(_ pb: UnsafeMutablePointer<AVIOContext>?, url: String, code: CInt) {
        state.withLock { state in
            if code < 0 || pb == nil {
                if state.failure == nil { state.failure = (url, code < 0 ? code : -EIO) }
                return
            }
            if let pb {
                state.open[UInt(bitPattern: pb)] = (url, !(url.hasSuffix(".m3u8") || url.hasSuffix(".m3u8.tmp")))
            }
        }
    }

    private func closed(_ pb: UnsafeMutablePointer<AVIOContext>, written: Int64, code: CInt) {
        let isSegment = state.withLock { state in
            let known = state.open.removeValue(forKey: UInt(bitPattern: pb))
            if code < 0, state.failure == nil { state.failure = (known?.url ?? "a file in \(folder)", code) }
            return known?.isSegment ?? false
        }
        if isSegment, written > 0 { segmentBytes.add(written, ordering: .relaxed) }
    }

    /// Sets the `hls` muxer's options (before `avformat_write_header`).
    func configure(_ ctx: UnsafeMutablePointer<AVFormatContext>) throws(MediaError) {
        let priv = ctx.pointee.priv_data
        let fmp4 = settings.segmentType == .fragmentedMP4
        // The segments' name template, the number in place of %d (the path has no % of its own).
        let template = (folder == "/" ? "" : folder) + "/" + stem + (fmp4 ? "%d.m4s" : "%d.ts")
        try check(av_opt_set(priv, "hls_segment_type", fmp4 ? "fmp4" : "mpegts", 0), calling: "av_opt_set")
        try check(av_opt_set(priv, "hls_segment_filename", template, 0), calling: "av_opt_set")
        if fmp4 {
            // A name, not a path: libavformat puts it beside the playlist.
            try check(av_opt_set(priv, "hls_fmp4_init_filename", stem + "_init.mp4", 0), calling: "av_opt_set")
        }
        try check(av_opt_set_int(priv, "hls_time", try settings.targetMicroseconds, 0), calling: "av_opt_set_int")
        switch settings.playlist {
        case .live(let size):
            try check(av_opt_set_int(priv, "hls_list_size", Int64(size), 0), calling: "av_opt_set_int")
            try check(av_opt_set(priv, "hls_flags", "+delete_segments+independent_segments", 0), calling: "av_opt_set")
        case .vod:
            try check(av_opt_set(priv, "hls_playlist_type", "vod", 0), calling: "av_opt_set")
            try check(av_opt_set(priv, "hls_flags", "+independent_segments", 0), calling: "av_opt_set")
        }
    }

    /// Creates `folder` and its missing parents; fails with ``/MediaCore/MediaError/Code/io`` naming the
    /// folder and the playlist when a part is not a folder or cannot be created, or when the folder
    /// cannot be written.
    private static func makeFolder(_ folder: String, for playlist: String) throws(MediaError) {
        var path = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") where part != "." {
            path += "/" + part
            if mkdir(path, 0o755) != 0, errno != EEXIST {
                throw MediaError(
                    .io,
                    "cannot create the folder \(path) for the HLS playlist \(playlist): \(String(cString: strerror(errno)))"
                )
            }
        }
        var info = stat()
        guard stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw MediaError(
                .io,
                "cannot create the folder \(folder) for the HLS playlist \(playlist): \(String(cString: strerror(ENOTDIR)))"
            )
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            throw MediaError(
                .io,
                "cannot write in the folder \(folder) for the HLS playlist \(playlist): \(String(cString: strerror(errno)))"
            )
        }
    }
}
