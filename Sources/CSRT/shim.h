// libsrt's C API (Haivision's Secure Reliable Transport), for MediaIngest's SRT listener. The helpers
// below set and read the socket options MediaIngest uses without void pointers in Swift.
#ifndef CSRT_SHIM_H
#define CSRT_SHIM_H

#include <string.h>
#include <srt/srt.h>
#include <srt/access_control.h>

/// Sets an `int` socket option; SRT_ERROR on failure.
static inline int mp_srt_set_int(SRTSOCKET socket, SRT_SOCKOPT option, int value) {
    return srt_setsockflag(socket, option, &value, (int)sizeof value);
}

/// Sets a string socket option (a passphrase, a stream ID); SRT_ERROR on failure.
static inline int mp_srt_set_string(SRTSOCKET socket, SRT_SOCKOPT option, const char *value) {
    return srt_setsockflag(socket, option, value, (int)strlen(value));
}

/// Copies a socket's stream ID into `buffer` (at most `capacity` - 1 bytes, NUL-terminated); its length,
/// or -1.
static inline int mp_srt_stream_id(SRTSOCKET socket, char *buffer, int capacity) {
    if (capacity < 1) return -1;
    int length = capacity - 1;
    if (srt_getsockflag(socket, SRTO_STREAMID, buffer, &length) == SRT_ERROR) return -1;
    if (length < 0 || length >= capacity) length = capacity - 1;
    buffer[length] = 0;
    return length;
}

/// The last error of the calling thread, as SRT's code.
static inline int mp_srt_last_error(void) { return srt_getlasterror(NULL); }

/// SRT's "no data within the receive timeout" code.
static inline int mp_srt_easyncrcv(void) { return SRT_EASYNCRCV; }

#endif
