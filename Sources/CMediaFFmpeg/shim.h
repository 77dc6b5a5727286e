#ifndef CMEDIAFFMPEG_SHIM_H
#define CMEDIAFFMPEG_SHIM_H
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#endif
