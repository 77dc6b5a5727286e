public import MediaCore

/// A window that shows the frames written to it, each at its presentation time: AVFoundation's
/// `AVCaptureVideoPreviewLayer` / `AVPlayerLayer`, GStreamer's `autovideosink`, ffplay's window.
///
/// ```swift
/// let preview = try VideoPreviewSink(title: "Camera", pacing: .clock(clock))
/// // Raw frames before the encoder: a tap shows each one to the window and passes it on.
/// let video = graph.addBranch(source: camera, stages: [MediaTap(observe: preview.submit), try H264Encoder()])
/// ```
///
/// - **Window**: an SDL2 window on the X11 display of `DISPLAY` (or Wayland where SDL chooses it), of
///   the first frame's size (or the size asked), resizable; the picture keeps its aspect (its pixel aspect
///   ratio included) and is letterboxed in black. Raw video of `yuv420p`, `nv12`, `rgb24` or `bgra`
///   (convert others with `VideoConverter` first: a frame of another format fails the write, naming it).
/// - **Timing**: ``Pacing`` says when a frame is due: at its presentation time on a ``/MediaCore/MediaClock`` (a
///   capture's clock), on a clock a player gives (its audio's heard position), or as soon as it arrives.
///   A frame is shown when due; one already a frame's duration late when its turn comes, with a newer
///   one waiting, is dropped and counted in ``Statistics/lateFrames`` (GStreamer's sinks drop late
///   buffers so). Frames wait in a queue of ``queueCapacity``; a frame arriving with the queue full pushes
///   the oldest out, counted in ``Statistics/overflowFrames``: a preview never slows the run it watches.
/// - **Threads**: the window has a thread of its own, which draws and handles the window's events (SDL's
///   video calls stay on the thread that opened it). ``submit(_:)`` and ``statistics`` are safe from any
///   thread; ``write(_:)`` is ``submit(_:)``. One preview window at a time in a process, which owns SDL
///   while it is open (it ends SDL with `SDL_Quit` when its window closes).
/// - **Closing**: the user closing the window (or ``close()``) ends the preview: later frames are ignored,
///   and ``CloseAction`` says whether the run goes on without it or a ``/MediaCore/StopSignal`` stops it.
///   ``finish()`` shows the frames still queued, each when due (giving up on those not due within a second
///   of the last shown: a clock that stopped), then closes the window.
/// - **Errors**: no display (no `DISPLAY`, an X server that does not answer), or SDL unable to make a
///   window, throws ``/MediaCore/MediaError/Code/unavailable`` from `init` with SDL's reason, never a
///   crash; so does a second preview while one is open.
public final class VideoPreviewSink: MediaSink, Sendable {
    /// When a frame is due.
    public enum Pacing: Sendable {
        /// At its presentation time on `clock` (a capture's frames are stamped on it).
        case clock(MediaClock)
        /// At its presentation time on the clock `now` reads, `nil` while it is not running (a player's
        /// heard audio position: frames wait while it is `nil`).
        case custom(now: @Sendable () -> MediaTime?)
        /// As soon as it arrives: no frame is late.
        case immediate
    }

    /// What the user closing the window does.
    public enum CloseAction: Sendable {
        /// The run goes on; the preview ignores the frames that follow.
        case continueRun
        /// The run is asked to stop, through the signal its driver watches.
        case stop(StopSignal)
    }

    /// The counts of a preview, readable from any thread.
    public struct Statistics: Sendable, Hashable {
        /// Frames drawn.
        public var shownFrames: Int64 = 0
        /// Frames dropped because they were already late when their turn came.
        public var lateFrames: Int64 = 0
        /// Frames pushed out of a full queue before their turn.
        public var overflowFrames: Int64 = 0
        /// Frames written after the window closed, ignored.
        public var framesAfterClose: Int64 = 0
        /// Whether the window is closed (by the user, ``VideoPreviewSink/close()`` or the end of the run).
        public var isClosed = false
        /// Whether the user closed it.
        public var closedByUser = false
        /// Frames waiting to be shown now.
        public var queuedFrames = 0
        /// The size of the window's drawing area, in pixels (0 × 0 before it opened).
        public var windowWidth = 0
        /// The height of the window's drawing area.
        public var windowHeight = 0
    }

    /// `VideoPreviewSink`.
    public var name: String { "VideoPreviewSink" }
    /// How many frames may wait to be shown.
    public let queueCapacity: Int
    let state: PreviewState

    /// Opens the window (on the preview's own thread) and returns once it is open.
    ///
    /// - Parameters:
    ///   - title: the window's title.
    ///   - width: the window's width; `nil`: the first frame's. Give both or neither.
    ///   - height: the window's height.
    ///   - pacing: when frames are due (see the type's documentation).
    ///   - whenClosed: what the user closing the window does.
    ///   - queueCapacity: how many frames may wait (at least 1).
    ///   - onKey: called on the window's thread with each key pressed in the window (a player's
    ///     controls); it should return quickly.
    ///   - onFrameShown: called on the window's thread after each frame is drawn, with the frame's
    ///     presentation time and the host time (``/MediaCore/MediaClock/hostTime``) it appeared at.
    /// - Throws: ``/MediaCore/MediaError/Code/unavailable`` with SDL's reason when no window can be
    ///   opened (no display), or while another preview is open.
    public init(
        title: String = "MediaPipeline", width: Int? = nil, height: Int? = nil, pacing: Pacing = .immediate,
        whenClosed: CloseAction = .continueRun, queueCapacity: Int = 8,
        onKey: (@Sendable (Key) -> Void)? = nil,
        onFrameShown: (@Sendable (_ presentationTime: MediaTime, _ hostTime: MediaTime) -> Void)? = nil
    ) throws(MediaError) {
        guard (width == nil) == (height == nil), (width ?? 1) > 0, (height ?? 1) > 0 else {
            throw MediaError(.invalidArgument, "VideoPreviewSink: give a positive width and height, or neither")
        }
        self.queueCapacity = max(1, queueCapacity)
        let state = PreviewState(
            pacing: pacing, whenClosed: whenClosed, capacity: max(1, queueCapacity),
            observers: PreviewState.Observers(key: onKey, frameShown: onFrameShown))
        try PreviewState.claimTheWindow()
        self.state = state
        let size = width.flatMap { w in height.map { (w, $0) } }
        do {
            // Detached: the thread signals its end through `state` (``PreviewState/waitUntilEnded()``),
            // which is how `finish()`, `close()` and `deinit` join it.
            try StageThread.detach { PreviewRenderer.run(state: state, title: title, size: size) }
        } catch {
            PreviewState.releaseTheWindow()
            throw error
        }
        if let failure = state.waitUntilOpen() {
            state.waitUntilEnded()
            throw failure
        }
    }

    deinit {
        state.requestClose(byUser: false)
        state.waitUntilEnded()
    }

    /// The preview's counts so far.
    public var statistics: Statistics { state.statistics }

    /// Queues `sample` to be shown when due; returns at once. Ignored (and counted) once the window
    /// is closed. Safe from any thread: a ``/MediaCore/MediaTap``'s observer.
    public func submit(_ sample: MediaSample) {
        state.enqueue(sample)
    }

    /// Queues `sample`, as ``submit(_:)`` does, after checking it is raw video the window can show.
    /// Throws why the window failed, when it could not be opened at the first frame or drawn in.
    public func write(_ sample: MediaSample) throws {
        if let failure = state.failure { throw failure }
        guard case .video(let format) = sample.format, let pixels = format.pixelFormat,
            PreviewRenderer.supports(pixels)
        else {
            throw MediaError(
                .unsupportedFormat,
                "VideoPreviewSink shows raw yuv420p, nv12, rgb24 or bgra video, not \(sample.format): "
                    + "convert it with VideoConverter first")
        }
        submit(sample)
    }

    /// Shows the frames still queued, each when due (see the type's documentation), then closes the
    /// window; throws why the window failed, if it did.
    public func finish() throws {
        state.finishQueue()
        state.waitUntilEnded()
        if let failure = state.failure { throw failure }
    }

    /// Closes the window now (frames still queued are not shown).
    public func close() {
        state.requestClose(byUser: false)
        state.waitUntilEnded()
    }
}
