// The C side of MediaPulse: libpulse's asynchronous API (threaded mainloop, context, streams,
// introspection, subscriptions), plus static inline wrappers for the macros Swift cannot import.
// Every wrapper is prefixed `mpa_` so it cannot collide with another package's shim.
#ifndef CPULSEAUDIO_SHIM_H
#define CPULSEAUDIO_SHIM_H

#include <pulse/pulseaudio.h>

/// `PA_INVALID_INDEX`: no such object.
static inline uint32_t mpa_invalid_index(void) { return PA_INVALID_INDEX; }
/// `(uint32_t) -1`: "let the server choose" in `pa_buffer_attr`.
static inline uint32_t mpa_buffer_attr_default(void) { return (uint32_t)-1; }

#endif
