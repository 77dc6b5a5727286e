import MediaCore
import MediaFFmpeg
import MediaTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The FFmpeg return-code funnel keeps FFmpeg's code and text, and classifies `AVERROR(ENOMEM)` as out of
/// memory whatever the call site expected (not as "invalid argument").
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct FFmpegErrorClassificationTests {
    @Test func outOfMemoryIsOutOfMemoryAtEveryCallSite() {
        for kind: MediaError.Code in [.invalidArgument, .invalidData, .encoderFailure, .decoderFailure, .io] {
            let error = MediaError.ffmpeg(-ENOMEM, calling: "avcodec_send_frame", kind)
            #expect(error.code == .outOfMemory, "\(kind)")
            #expect(error.ffmpegCode == -ENOMEM)
            #expect(error.ffmpegCall == "avcodec_send_frame")
        }
    }

    @Test func otherCodesKeepTheCallSitesKind() {
        let invalid = MediaError.ffmpeg(-EINVAL, calling: "avcodec_open2", .invalidArgument)
        #expect(invalid.code == .invalidArgument)
        #expect(invalid.message.lowercased().contains("invalid argument"))
        let io = MediaError.ffmpeg(-EIO, calling: "avio_open", .io)
        #expect(io.code == .io)
        #expect(io.ffmpegCode == -EIO)
    }
}
