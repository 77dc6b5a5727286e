// SDL2's video API for MediaDisplay's preview window. Only MediaDisplay imports it.
//
// <SDL2/SDL.h> rather than pkg-config's -I/usr/include/SDL2: its cflags also carry -D_REENTRANT, which
// SwiftPM refuses with a warning on every build (as libpulse's do); SDL's headers include each other
// by quoted name, so the one path is enough.
#pragma once
#include <SDL2/SDL.h>

// Function-like macros Swift does not import.
static inline int mp_sdl_windowpos_undefined(void) { return (int)SDL_WINDOWPOS_UNDEFINED; }
static inline Uint32 mp_sdl_event_type(const SDL_Event *event) { return event->type; }
static inline Uint8 mp_sdl_window_event(const SDL_Event *event) { return event->window.event; }
static inline Sint32 mp_sdl_key_symbol(const SDL_Event *event) { return event->key.keysym.sym; }
