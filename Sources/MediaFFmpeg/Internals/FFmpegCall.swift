internal import CMediaFFmpeg
package import MediaCore
#if canImport(Glibc)
    import Glibc
#endif
import Synchronization

/// The one funnel for FFmpeg return codes: a negative code becomes a ``/MediaCore/MediaError`` naming the call.
@inline(__always)
func check(_ code: CInt, calling function: StaticString, _ errorCode: MediaError.Code = .invalidArgument)
    throws(MediaError)
{
    guard code < 0 else { return }
    throw MediaError.ffmpeg(code, calling: function, errorCode)
}

extension MediaError {
    /// An error for FFmpeg's `code` returned by `function`, with FFmpeg's own description of the code.
    ///
    /// `kind` is what the call's failure means at the call site, except for `AVERROR(ENOMEM)`, which is
    /// always ``/MediaCore/MediaError/Code/outOfMemory``: any FFmpeg call can fail to allocate, and a
    /// caller deciding whether to retry or give up must not read that as an invalid argument.
    package static func ffmpeg(_ code: Int32, calling function: StaticString, _ kind: MediaError.Code) -> MediaError {
        let kind: MediaError.Code = code == -ENOMEM ? .outOfMemory : kind
        return MediaError(kind, FFmpeg.describe(code), ffmpegCall: "\(function)", ffmpegCode: code)
    }
}

/// Process-wide FFmpeg helpers.
enum FFmpeg {
    /// `av_strerror`: FFmpeg's text for an error code.
    static func describe(_ code: CInt) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        if av_strerror(code, &buffer, buffer.count) < 0 { return "FFmpeg error \(code)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Silences FFmpeg's own logging once per process: errors come back as ``/MediaCore/MediaError`` instead.
    static func quietLogging() {
        _ = quiet
    }

    private static let quiet: Void = mp_set_log_level(AV_LOG_QUIET)

    /// `avformat_network_init`, once per process, before the first network protocol is opened.
    static func initializeNetwork() {
        _ = network
    }

    private static let network: Void = { _ = avformat_network_init() }()

    /// Owner objects (codec contexts, frames, packets, FIFOs, resamplers) alive now: for leak tests.
    static let liveObjects = Atomic<Int>(0)

    /// Counts one more live owner object.
    static func didAllocate() { liveObjects.add(1, ordering: .relaxed) }
    /// Counts one less live owner object.
    static func didFree() { liveObjects.subtract(1, ordering: .relaxed) }
}

/// Counts of FFmpeg resources MediaPipeline holds, for tests that check nothing leaks.
public enum FFmpegResources {
    /// The number of FFmpeg-owning objects alive in this process (each frees its resource when released).
    public static var liveCount: Int { FFmpeg.liveObjects.load(ordering: .relaxed) }
}
