internal import CSDL2
import Glibc
import MediaCore

/// The window thread of a ``VideoPreviewSink``: starts SDL's video, opens the window (at the size asked,
/// or at the first frame's), then until the preview ends handles the window's events and shows each
/// queued frame when ``VideoPreviewSink/Pacing`` says it is due, dropping the late ones.
enum PreviewRenderer {
    /// What to do next with the queue.
    private enum Step {
        /// Show this frame.
        case show(MediaSample)
        /// Nothing is due yet: wait about this long (seconds) and look again.
        case wait(Double)
        /// Close the window.
        case end
    }

    static func supports(_ pixels: PixelFormat) -> Bool { PreviewWindow.supports(pixels) }

    /// The thread's body: returns when the window has closed, with ``PreviewState/Shared/ended`` set.
    static func run(state: PreviewState, title: String, size: (Int, Int)?) {
        defer {
            state.shared.withLock {
                $0.statistics.isClosed = true
                $0.queue.removeAll()
            }
            PreviewState.releaseTheWindow()
            state.shared.withLock { $0.ended = true }
        }
        // SDL would otherwise install SIGINT/SIGTERM handlers of its own, and a program's Ctrl-C would
        // become an SDL_QUIT event nobody reads.
        SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1")
        if let failure = startVideo() {
            state.shared.withLock { $0.failure = failure }
            SDL_Quit()
            return
        }
        // The window and its SDL objects are gone when `show` returns, before SDL ends. SDL_Quit, not only
        // the video subsystem's end: it also frees the hints set here and SDL's D-Bus connection, which
        // LeakSanitizer otherwise reports. A process has one preview at a time, so the preview owns SDL
        // while its window is open.
        show(state: state, title: title, size: size)
        SDL_Quit()
    }

    /// Opens the window (now at `size`, or at the first frame's) and shows the frames until the preview
    /// ends; the window is destroyed on return.
    private static func show(state: PreviewState, title: String, size: (Int, Int)?) {
        var window: PreviewWindow?
        do throws(MediaError) {
            if let (width, height) = size { window = try PreviewWindow(title: title, width: width, height: height) }
        } catch {
            state.shared.withLock { $0.failure = error }
            return
        }
        state.shared.withLock { $0.opened = true }
        var shownAspect: Double?
        while true {
            switch handleEvents(state: state) {
            case .closed: return
            case .redraw:
                if let window, let shownAspect {
                    window.present(aspect: shownAspect)
                    let output = window.outputSize
                    state.shared.withLock { ($0.statistics.windowWidth, $0.statistics.windowHeight) = output }
                }
            case .none: break
            }
            switch nextStep(state) {
            case .end:
                return
            case .wait(let seconds):
                usleep(UInt32(min(max(seconds, 0.000_5), 0.005) * 1_000_000))
            case .show(let frame):
                guard case .video(let format) = frame.format, let pixels = format.pixelFormat,
                    PreviewWindow.supports(pixels)
                else { continue }
                do throws(MediaError) {
                    let aspect = displayAspect(format)
                    if window == nil {
                        window = try PreviewWindow(
                            title: title, width: Int((Double(format.height) * aspect).rounded()),
                            height: format.height)
                    }
                    guard let window else { continue }
                    try window.upload(frame, format, pixels)
                    window.present(aspect: aspect)
                    shownAspect = aspect
                    state.observers.frameShown?(frame.timing.presentationTime, MediaClock.hostTime)
                    let output = window.outputSize
                    state.shared.withLock {
                        if $0.ending == .drain { $0.drainDeadline = MediaClock.hostTime + PreviewState.drainPatience }
                        $0.statistics.shownFrames += 1
                        ($0.statistics.windowWidth, $0.statistics.windowHeight) = output
                    }
                } catch {
                    state.shared.withLock { $0.failure = error }
                    return
                }
            }
        }
    }

    /// Starts SDL's video on the display the environment names, or says why it cannot. Unless
    /// `SDL_VIDEODRIVER` says otherwise, X11 when `DISPLAY` is set, else Wayland when `WAYLAND_DISPLAY`
    /// is; with neither, no window: SDL would otherwise try Wayland (which prints to standard error) and
    /// settle on its off-screen driver, and a preview nobody can see would pass for one.
    private static func startVideo() -> MediaError? {
        func variable(_ name: String) -> String? {
            getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        let display = variable("DISPLAY")
        let explicit = variable("SDL_VIDEODRIVER")
        if explicit == nil {
            if display != nil {
                SDL_SetHint(SDL_HINT_VIDEODRIVER, "x11")
            } else if variable("WAYLAND_DISPLAY") != nil {
                SDL_SetHint(SDL_HINT_VIDEODRIVER, "wayland")
            } else {
                return MediaError(
                    .unavailable,
                    "VideoPreviewSink: no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set)")
            }
        }
        guard SDL_InitSubSystem(SDL_INIT_VIDEO) == 0 else {
            return MediaError(
                .unavailable,
                "VideoPreviewSink: no display to open a window on (DISPLAY=\(display ?? "unset")): \(sdlError())")
        }
        return nil
    }

    /// What the window's events ask for.
    private enum Events {
        case none, redraw, closed
    }

    /// Reads the window's pending events: a resize or an expose asks for a redraw; a close asks the
    /// preview to end (and the run to stop, when so asked).
    private static func handleEvents(state: PreviewState) -> Events {
        var event = SDL_Event()
        var result = Events.none
        while SDL_PollEvent(&event) == 1 {
            let type = mp_sdl_event_type(&event)
            if type == SDL_QUIT.rawValue {
                result = .closed
            } else if type == SDL_KEYDOWN.rawValue, let observe = state.observers.key {
                if let key = key(mp_sdl_key_symbol(&event)) { observe(key) }
            } else if type == SDL_WINDOWEVENT.rawValue {
                switch UInt32(mp_sdl_window_event(&event)) {
                case SDL_WINDOWEVENT_CLOSE.rawValue: result = .closed
                case SDL_WINDOWEVENT_SIZE_CHANGED.rawValue, SDL_WINDOWEVENT_EXPOSED.rawValue:
                    if result == .none { result = .redraw }
                default: break
                }
            }
        }
        if result == .closed {
            state.requestClose(byUser: true)
            if case .stop(let signal) = state.whenClosed { signal.request() }
        }
        return result
    }

    /// The key an SDL key code stands for, `nil` for one that types nothing (shift, function keys).
    private static func key(_ code: Int32) -> VideoPreviewSink.Key? {
        switch code {
        case Int32(SDLK_SPACE.rawValue): return .space
        case Int32(SDLK_LEFT.rawValue): return .left
        case Int32(SDLK_RIGHT.rawValue): return .right
        case Int32(SDLK_UP.rawValue): return .up
        case Int32(SDLK_DOWN.rawValue): return .down
        case Int32(SDLK_ESCAPE.rawValue): return .escape
        case 33..<127: return .character(Character(Unicode.Scalar(UInt8(code))))
        default: return nil
        }
    }

    /// The next frame due, dropping (and counting) those already late with a newer one queued.
    private static func nextStep(_ state: PreviewState) -> Step {
        let now: MediaTime?
        var waitsForClock = false
        switch state.pacing {
        case .immediate: now = nil
        case .clock(let clock): now = clock.now
        case .custom(let read):
            now = read()
            waitsForClock = now == nil
        }
        let host = MediaClock.hostTime
        return state.shared.withLock { s -> Step in
            if s.ending == .now { return .end }
            // Draining, nothing has fallen due for a while: what is left will not be.
            if s.ending == .drain && s.drainDeadline.isValid && host > s.drainDeadline { return .end }
            while let first = s.queue.first {
                guard let now else {
                    if waitsForClock { return .wait(0.005) }
                    return .show(s.queue.removeFirst())
                }
                let start = first.timing.presentationTime
                guard start.isValid else { return .show(s.queue.removeFirst()) }
                let duration =
                    first.timing.duration.isValid ? first.timing.duration : MediaTime(value: 1, timescale: 30)
                if now < start { return .wait((start - now).seconds ?? 0.005) }
                if now >= start + duration && s.queue.count > 1 {
                    s.queue.removeFirst()
                    s.statistics.lateFrames += 1
                    continue
                }
                return .show(s.queue.removeFirst())
            }
            return s.ending == .drain ? .end : .wait(0.002)
        }
    }

    /// Width over height of the picture as shown: its pixel aspect ratio applied.
    private static func displayAspect(_ format: VideoFormat) -> Double {
        let pixel =
            format.pixelAspectRatio.map {
                $0.verticalSpacing > 0 ? Double($0.horizontalSpacing) / Double($0.verticalSpacing) : 1
            } ?? 1
        return Double(format.width) * (pixel > 0 ? pixel : 1) / Double(max(1, format.height))
    }
}
