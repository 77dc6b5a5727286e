public import MediaCore
import Synchronization

/// Several video inputs drawn on one canvas: GStreamer's `compositor`, `AVVideoComposition`, or
/// `ffmpeg -filter_complex overlay`/`xstack`. A compositor is a ``/MediaCore/MediaSource`` of raw
/// yuv420p frames at the canvas's size and rate: it starts a pipeline or a graph branch, and its
/// frames go through stages (an encoder) into sinks like any source's.
///
/// ```swift
/// let canvas = VideoCompositor.Canvas(width: 1280, height: 720, frameRate: FrameRate(30))
/// let main = VideoCompositor.Input(source: try Y4MReader(path: "talk.y4m"), layout: .fullCanvas(canvas))
/// let inset = VideoCompositor.Input(source: try Y4MReader(path: "slides.y4m"), layout: .inset(on: canvas))
/// let logo = VideoCompositor.Input.still(try StillImage.load(path: "logo.png"), layout: .init(x: 24, y: 24))
/// let compositor = try VideoCompositor(canvas: canvas, inputs: [main, inset, logo])
/// // meanwhile, from any thread: inset.controls.layout.x = 16
/// ```
///
/// - Inputs: raw video of any ``/MediaCore/PixelFormat`` and size, read through each input's own
///   stages; a picture with alpha (`bgra`: a PNG, a text layer) is blended by its alpha. Each is
///   cropped (``Crop``), scaled to its ``Layout``'s size (bicubic, as `ffmpeg`'s `scale`; the shape kept
///   and the picture centred in its box, or stretched), and drawn at its position, in ``Layout/zIndex``
///   order, at its ``Layout/alpha``. Straight alpha over the canvas, as FFmpeg's `overlay` blends
///   yuva420p on yuv420p (8-bit, `(d·(255−a) + s·a) / 255`; chroma by the mean alpha of its 2×2 pixels).
/// - Time: canvas frame *k* is at *k* / rate. Each input shows its latest frame at or before that
///   time (its first frame at its `offset`, its own timestamps after that): a slower input's frames
///   are repeated, a faster input's frames are skipped, both counted (``Controls/repeatedFrames``,
///   ``Controls/droppedFrames``). An input before its first frame, or after its last frame's end,
///   draws nothing; it leaves the canvas once it has ended.
/// - Stills (``Input/still(_:layout:)``, ``Input/text(_:on:layout:)``) stay until removed. The
///   composition ends when every input that is not a still has ended, or at `duration`; with only
///   stills and no `duration` it does not end.
/// - Live inputs (``Live``: a camera, a screen, a stream stamped on a shared ``/MediaCore/MediaClock``):
///   each input is read by a thread of its own, and frame *k* goes out once every input has delivered
///   its frame for *k* / rate, or at the latest ``Live/latency`` after that time on the clock; each
///   input shows the latest frame it has delivered by then: a stalled input holds its last frame
///   (counted as repeated) and never holds the others.
/// - Changes from any thread while it runs: ``Controls/layout`` (position, size, order, alpha, crop),
///   ``Controls/remove()``, and ``add(_:)``; each shows from the next canvas frame.
public final class VideoCompositor: MediaSource {
    /// The `Sendable` controls of one input, set from any thread while the compositor runs.
    public final class Controls: Sendable {
        private let current: Locked<Layout>
        private let removed = Atomic<Bool>(false)
        private let repeated = Atomic<Int>(0)
        private let dropped = Atomic<Int>(0)

        init(layout: Layout) { current = Locked(layout) }

        /// Where and how the input is drawn; a change shows from the next canvas frame.
        public var layout: Layout {
            get { current.withLock { $0 } }
            set { current.withLock { $0 = newValue } }
        }

        /// Takes the input off the canvas from the next frame.
        public func remove() { removed.store(true, ordering: .relaxed) }

        /// Whether ``remove()`` was called.
        public var isRemoved: Bool { removed.load(ordering: .relaxed) }

        /// Canvas frames that showed a frame of this input that an earlier canvas frame had shown
        /// already (its rate is lower than the canvas's, or it stalled).
        public var repeatedFrames: Int { repeated.load(ordering: .relaxed) }

        /// Frames of this input that no canvas frame showed (its rate is higher than the canvas's, or
        /// a live input's queue overflowed).
        public var droppedFrames: Int { dropped.load(ordering: .relaxed) }

        func countRepeated() { repeated.add(1, ordering: .relaxed) }
        func countDropped(_ count: Int = 1) { dropped.add(count, ordering: .relaxed) }
    }

    /// One input: a source and the stages its frames go through first, where it starts, and its controls.
    /// `Sendable`: its source and stages travel inside, to whichever thread reads them, and can be read by
    /// one compositor only.
    public struct Input: Sendable {
        /// The source and stages, taken once by the compositor that reads them.
        let chain: InputChain
        /// Where its first frame shows on the canvas's timeline (counted from the next frame, for an input
        /// added while running; a live input is placed by its frames' times on the clock instead).
        public var offset: MediaTime
        /// Its layout and counts.
        public let controls: Controls
        /// Whether it stays after its source ends (a still image, a text layer).
        public let isStill: Bool

        /// An input of `source` through `stages`, drawn as `layout` says from `offset` on.
        public init(
            source: sending any MediaSource, stages: sending [any MediaStage] = [], layout: Layout = Layout(),
            offset: MediaTime = .zero
        ) {
            self.init(source: source, stages: stages, layout: layout, offset: offset, isStill: false)
        }

        init(
            source: sending any MediaSource, stages: sending [any MediaStage], layout: Layout, offset: MediaTime,
            isStill: Bool
        ) {
            chain = InputChain(source: source, stages: stages)
            self.offset = offset
            controls = Controls(layout: layout)
            self.isStill = isStill
        }

        /// A still picture (one raw video frame: ``StillImage/load(path:)`` gives one from a PNG or JPEG),
        /// shown from the start until removed.
        public static func still(_ picture: MediaSample, layout: Layout = Layout()) -> Input {
            var still = picture
            still.timing = SampleTiming(presentationTime: .zero, decodeTime: .zero, duration: .invalid)
            return Input(source: ArraySource([still]), stages: [], layout: layout, offset: .zero, isStill: true)
        }
    }

    /// What an input reads: its source and its stages.
    typealias Payload = InputChain.Parts

    /// How a live composition keeps time: the clock its inputs' frames are stamped on, and how long a
    /// canvas frame waits for an input's frame of its time.
    public struct Live: Sendable {
        /// The shared clock: canvas frame *k* goes out when every input has delivered its frame for
        /// *k* / rate, or at the latest `latency` after that time.
        public var clock: MediaClock
        /// How long after its time a canvas frame waits for a late input (GStreamer's aggregator latency):
        /// a capture delivers a frame once it is whole, a frame's duration after its time.
        public var latency: MediaTime

        /// Live timing on `clock`, waiting at most `latency` (default 50 ms) for a late input.
        public init(clock: MediaClock, latency: MediaTime = MediaTime(value: 1, timescale: 20)) {
            self.clock = clock
            self.latency = latency
        }
    }

    /// The canvas.
    public let canvas: Canvas
    /// Where the composition ends, or `nil`: when its last moving input ends.
    public let duration: MediaTime?
    /// Live timing, or `nil` for files and generators (composed as fast as they are read).
    public let live: Live?
    /// `VideoCompositor`.
    public var name: String { "VideoCompositor" }
    private var inputs: [CompositorInput] = []
    private let pending = Locked<[Input]>([])
    private var frameIndex: Int64 = 0
    private var picture: CanvasPicture
    private var output = SampleRecycler()
    private var order: [(zIndex: Int, index: Int)] = []
    private var everHadMovingInput = false

    /// A compositor of `inputs` on `canvas`, ending at `duration` (or when its last moving input ends).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a canvas out of range, or an
    ///   input given to another compositor already.
    public init(canvas: Canvas, duration: MediaTime? = nil, live: Live? = nil, inputs: [Input] = []) throws(MediaError)
    {
        self.canvas = try canvas.validated()
        self.duration = duration
        self.live = live
        picture = CanvasPicture(canvas)
        FFmpeg.quietLogging()
        for input in inputs { try adopt(input, at: .zero) }
    }

    /// The inputs on the canvas.
    public var inputCount: Int { inputs.count }

    /// Adds `input` from any thread: it joins at the next canvas frame, its `offset` counted from there.
    public func add(_ input: Input) {
        pending.withLock { $0.append(input) }
    }

    /// The next canvas frame, or `nil` once the composition has ended.
    ///
    /// - Throws: an input's error, or its stages', stamped with its name; ``/MediaCore/MediaError/Code/formatMismatch``
    ///   for an input frame that is not raw video.
    public func next() throws -> MediaSample? {
        let time = canvas.frameRate.time(ofFrame: frameIndex)
        if let duration, time >= duration { return nil }
        let added = pending.withLock { list in
            defer { list = [] }
            return list
        }
        for input in added { try adopt(input, at: time) }
        if let live { wait(for: time, live) }
        for input in inputs { try input.advance(to: time, frameDuration: canvas.frameRate.frameDuration) }
        inputs.removeAll { $0.isDone }
        if duration == nil, everHadMovingInput, !inputs.contains(where: { !$0.isStill }) { return nil }
        picture.clear()
        // Drawing order: z-index, then the order inputs came in (a reused array: no allocation per frame).
        order.removeAll(keepingCapacity: true)
        for (index, input) in inputs.enumerated() { order.append((input.controls.layout.zIndex, index)) }
        order.sort { $0 < $1 }
        for (_, index) in order { try inputs[index].draw(on: &picture) }
        let frameDuration = canvas.frameRate.frameDuration
        // Copied into the recycled sample (no allocation once the consumer has let go of the last frame),
        // so that the canvas is drawn in place.
        let planes = picture.planes
        let sample = output.make(
            format: .video(.raw(.yuv420p, width: canvas.width, height: canvas.height, frameRate: canvas.frameRate)),
            timing: SampleTiming(presentationTime: time, decodeTime: time, duration: frameDuration), frameCount: 1,
            planeCount: 3
        ) { plane, bytes in bytes.append(contentsOf: planes[plane]) }
        frameIndex += 1
        return sample
    }

    /// Sleeps until the clock reaches `time`, then until every live input has delivered its frame for
    /// it, or `latency` after it.
    private func wait(for time: MediaTime, _ live: Live) {
        live.clock.sleep(until: time)
        let due = time + live.latency
        let pause = MediaTime(value: 1, timescale: 1000)
        while live.clock.now < due, !inputs.allSatisfy({ $0.covers(time) }) {
            let soon = live.clock.now + pause
            live.clock.sleep(until: soon < due ? soon : due)
        }
    }

    private func adopt(_ input: Input, at time: MediaTime) throws(MediaError) {
        let payload = try input.chain.take(by: "VideoCompositor")
        guard input.offset.isNumeric, input.offset >= .zero else {
            throw MediaError(
                .invalidArgument, "an input's offset must be a finite time of 0 or more, not \(input.offset)")
        }
        if !input.isStill { everHadMovingInput = true }
        if live != nil && !input.isStill {
            inputs.append(try CompositorInput.live(payload, controls: input.controls))
        } else {
            inputs.append(
                try CompositorInput.file(
                    payload, controls: input.controls, isStill: input.isStill, origin: time + input.offset))
        }
    }
}

@available(*, unavailable) extension VideoCompositor: Sendable {}
