// The C side of MediaFFmpeg: FFmpeg's headers plus static inline wrappers for the macros Swift
// cannot import. Every wrapper is prefixed `mp_` so it cannot collide with another package's shim.
#ifndef CMEDIAFFMPEG_SHIM_H
#define CMEDIAFFMPEG_SHIM_H

#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavdevice/avdevice.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavformat/avformat.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/cpu.h>
#include <libavutil/error.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libavutil/time.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

/// `AVERROR(e)`: an errno value as an FFmpeg error code.
static inline int mp_averror(int e) { return AVERROR(e); }
/// `AVERROR(EAGAIN)`: "output is not available in this state, send more input".
static inline int mp_averror_eagain(void) { return AVERROR(EAGAIN); }
/// `AVERROR_EOF`: end of stream.
static inline int mp_averror_eof(void) { return AVERROR_EOF; }
/// `AVERROR_EXIT`: the interrupt callback asked a blocking call to give up.
static inline int mp_averror_exit(void) { return AVERROR_EXIT; }
/// `AVERROR_INVALIDDATA`.
static inline int mp_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
/// `AVERROR_ENCODER_NOT_FOUND`.
static inline int mp_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
/// `AV_NOPTS_VALUE`: no timestamp.
static inline int64_t mp_nopts_value(void) { return AV_NOPTS_VALUE; }

/// `av_opt_set_int_list(sink, "pix_fmts", formats, AV_PIX_FMT_NONE, AV_OPT_SEARCH_CHILDREN)` (a macro):
/// the pixel formats a `buffersink` may produce, `count` of them (the graph converts to one of them).
static inline int mp_buffersink_set_pix_fmts(AVFilterContext *_Nonnull sink, const int *_Nonnull formats, int count) {
    return av_opt_set_bin(sink, "pix_fmts", (const uint8_t *)formats, count * (int)sizeof(int), AV_OPT_SEARCH_CHILDREN);
}

/// `av_log` is variadic; this sets the level only (MediaPipeline keeps FFmpeg quiet by default).
static inline void mp_set_log_level(int level) { av_log_set_level(level); }

/// `frame->data[plane]` (Swift imports the array as an 8-tuple).
static inline uint8_t *_Nullable mp_frame_data(const AVFrame *_Nonnull frame, int plane) { return frame->data[plane]; }
/// `frame->linesize[plane]`.
static inline int mp_frame_linesize(const AVFrame *_Nonnull frame, int plane) { return frame->linesize[plane]; }
/// `av_frame_get_buffer` for an audio frame (format, nb_samples and ch_layout set, at most
/// AV_NUM_DATA_POINTERS planes), but with one buffer for all the planes where av_frame_get_buffer makes
/// one per plane: `avcodec_send_frame`'s reference to the frame then costs one `AVBufferRef`, not one
/// per channel. AVFrame allows it ("there may be a single buffer for all the data"); the planes are
/// laid out as av_frame_get_buffer lays out each (av_samples_fill_arrays, default alignment), one after
/// the other, so every plane starts as aligned as the buffer.
static inline int mp_frame_get_audio_buffer_shared(AVFrame *_Nonnull frame) {
    int channels = frame->ch_layout.nb_channels;
    int planes = av_sample_fmt_is_planar(frame->format) ? channels : 1;
    if (channels <= 0 || planes > AV_NUM_DATA_POINTERS || frame->nb_samples <= 0 || frame->buf[0]) {
        return AVERROR(EINVAL);
    }
    int linesize = 0;
    int size = av_samples_get_buffer_size(&linesize, channels, frame->nb_samples, frame->format, 0);
    if (size < 0) return size;
    AVBufferRef *buffer = av_buffer_alloc(size);
    if (!buffer) return AVERROR(ENOMEM);
    int filled = av_samples_fill_arrays(frame->data, &linesize, buffer->data, channels, frame->nb_samples,
                                        frame->format, 0);
    if (filled < 0) {
        av_buffer_unref(&buffer);
        return filled;
    }
    frame->buf[0] = buffer;
    frame->extended_data = frame->data;
    frame->linesize[0] = linesize;
    return 0;
}
/// `sws_scale` over whole frames: converts all of `src` into `dst` (both allocated, sizes as the context's).
static inline int mp_sws_scale(struct SwsContext *_Nonnull context, const AVFrame *_Nonnull src, AVFrame *_Nonnull dst) {
    return sws_scale(context, (const uint8_t *const *)src->data, src->linesize, 0, src->height, dst->data, dst->linesize);
}
/// `sws_scale` from planes the caller holds (`height` rows, `src[i]` with `srcStride[i]` bytes a row) into
/// the whole of `dst` (allocated, sizes as the context's): no copy of the source into a frame first.
static inline int mp_sws_scale_planes(struct SwsContext *_Nonnull context, const uint8_t *_Nullable const *_Nonnull src,
                                      const int *_Nonnull srcStride, int height, AVFrame *_Nonnull dst) {
    return sws_scale(context, src, srcStride, 0, height, dst->data, dst->linesize);
}

#endif

// V4L2 queries for VideoDevice (the _IOR/_IOWR request macros do not import into Swift). Each returns
// ioctl's result: 0, or -1 with errno set (EINVAL at the end of an enumeration, ENOTTY for a file that is
// not a V4L2 device).
#include <linux/videodev2.h>
#include <sys/ioctl.h>
static inline int mp_v4l2_querycap(int fd, struct v4l2_capability *_Nonnull cap) {
    return ioctl(fd, VIDIOC_QUERYCAP, cap);
}
static inline int mp_v4l2_enum_fmt(int fd, struct v4l2_fmtdesc *_Nonnull desc) {
    return ioctl(fd, VIDIOC_ENUM_FMT, desc);
}
static inline int mp_v4l2_enum_framesizes(int fd, struct v4l2_frmsizeenum *_Nonnull size) {
    return ioctl(fd, VIDIOC_ENUM_FRAMESIZES, size);
}
static inline int mp_v4l2_enum_frameintervals(int fd, struct v4l2_frmivalenum *_Nonnull interval) {
    return ioctl(fd, VIDIOC_ENUM_FRAMEINTERVALS, interval);
}
/// `frmsize.discrete` / `frmsize.stepwise` live in an anonymous union Swift imports awkwardly.
static inline struct v4l2_frmsize_discrete mp_v4l2_frmsize_discrete(const struct v4l2_frmsizeenum *_Nonnull size) {
    return size->discrete;
}
static inline struct v4l2_frmsize_stepwise mp_v4l2_frmsize_stepwise(const struct v4l2_frmsizeenum *_Nonnull size) {
    return size->stepwise;
}
static inline struct v4l2_fract mp_v4l2_frmival_discrete(const struct v4l2_frmivalenum *_Nonnull interval) {
    return interval->discrete;
}

/// `avdevice_register_all()`, once: libavdevice's inputs (`v4l2`, `x11grab`) become findable by name.
static inline void mp_avdevice_register_all(void) {
    static int registered = 0;
    if (!__atomic_exchange_n(&registered, 1, __ATOMIC_SEQ_CST)) avdevice_register_all();
}
