import MediaCore
import Synchronization

/// One input of a ``VideoCompositor``: its source and stages (read on the compositor's thread, or by
/// a thread of its own when live), the frames read ahead, the frame it shows now, and its layer.
/// Lives on the compositor's thread.
final class CompositorInput {
    let controls: VideoCompositor.Controls
    let isStill: Bool
    let name: String
    /// Where its first frame shows on the canvas's timeline (file inputs).
    private let origin: MediaTime
    /// Read on the compositor's thread (file inputs), or `nil` for a live input.
    private let source: CheckedSource?
    private let stages: MediaBin?
    private let live: LiveVideoQueue?
    /// Frames read and not yet shown, each with its time on the canvas's timeline.
    private var ahead: [(sample: MediaSample, time: MediaTime)] = []
    private var hasEnded = false
    /// Its first frame's own time (file inputs): times are counted from it.
    private var firstTime: MediaTime?
    /// Where the next frame goes when a frame carries no time.
    private var nextTime: MediaTime?
    private var current: (sample: MediaSample, time: MediaTime, end: MediaTime)?
    private var serial = 0
    private var isPastEnd = false
    private let layer: CompositorLayer

    /// An input reading `payload` on a thread of its own, its frames placed by their times on the clock.
    static func live(
        _ payload: sending VideoCompositor.Payload, controls: VideoCompositor.Controls
    ) throws(MediaError) -> CompositorInput {
        let queue = LiveVideoQueue()
        let name = try startReader(payload, queue: queue, controls: controls)
        return try CompositorInput(
            name: name, source: nil, stages: nil, live: queue, controls: controls, isStill: false, origin: .zero)
    }

    /// An input reading `payload` on the compositor's thread, its first frame at `origin`.
    static func file(
        _ payload: sending VideoCompositor.Payload, controls: VideoCompositor.Controls, isStill: Bool,
        origin: MediaTime
    ) throws(MediaError) -> CompositorInput {
        let checked = CheckedSource(payload.source)
        return try CompositorInput(
            name: checked.name, source: checked,
            stages: MediaBin("\(checked.name) (compositor input)", stages: payload.stages), live: nil,
            controls: controls, isStill: isStill, origin: origin)
    }

    private init(
        name: String, source: CheckedSource?, stages: MediaBin?, live: LiveVideoQueue?,
        controls: VideoCompositor.Controls, isStill: Bool, origin: MediaTime
    ) throws(MediaError) {
        self.name = name
        self.source = source
        self.stages = stages
        self.live = live
        self.controls = controls
        self.isStill = isStill
        self.origin = origin
        layer = try CompositorLayer()
    }

    /// Starts the thread that reads a live input's source through its stages into `queue`; the source's name.
    private static func startReader(
        _ payload: sending VideoCompositor.Payload, queue: LiveVideoQueue, controls: VideoCompositor.Controls
    ) throws(MediaError) -> String {
        let checked = CheckedSource(payload.source)
        let reader = LiveVideoReader(
            source: checked, stages: MediaBin("\(checked.name) (compositor input)", stages: payload.stages),
            queue: queue, controls: controls)
        let name = checked.name
        try StageThread.detach { reader.run() }
        return name
    }

    deinit { live?.stop.store(true, ordering: .relaxed) }

    /// Whether the compositor need not wait for it at `time`: a file input, or a live one that has
    /// delivered a frame at or after `time` (so its latest frame at `time` is known), or has ended.
    func covers(_ time: MediaTime) -> Bool {
        guard let live else { return true }
        return live.state.withLock { $0.hasEnded || ($0.lastTime.isNumeric && $0.lastTime >= time) }
    }

    /// Whether it has left: removed, or ended with its last frame shown to its end.
    var isDone: Bool { controls.isRemoved || isPastEnd }

    /// Takes the frames up to `time` and makes the latest of them the one shown; counts skipped frames
    /// as dropped and a frame shown again as repeated. A frame without a duration lasts `frameDuration`
    /// (the canvas's).
    func advance(to time: MediaTime, frameDuration: MediaTime) throws {
        if let live {
            let (frames, ended, failure) = live.take()
            if let failure { throw failure }
            ahead += frames.map { ($0, $0.timing.presentationTime.isNumeric ? $0.timing.presentationTime : time) }
            hasEnded = ended
            // Frames stamped ahead of the clock wait here; beyond a queue's worth, the oldest go (counted).
            let excess = ahead.count - LiveVideoQueue.capacity
            if excess > 0 {
                ahead.removeFirst(excess)
                controls.countDropped(excess)
            }
        } else {
            while !hasEnded && (ahead.last.map { $0.time <= time } ?? true) { try readOne() }
        }
        var newest: (sample: MediaSample, time: MediaTime)?
        while let first = ahead.first, first.time <= time {
            if newest != nil { controls.countDropped() }
            newest = first
            ahead.removeFirst()
        }
        if let newest {
            let duration = newest.sample.timing.duration
            let end =
                isStill
                ? MediaTime.positiveInfinity
                : newest.time + (duration.isNumeric && duration > .zero ? duration : frameDuration)
            if end <= time && hasEnded && ahead.isEmpty {
                // Its last frame ended before this canvas frame: never shown.
                controls.countDropped()
                current = nil
                isPastEnd = true
            } else {
                current = (newest.sample, newest.time, end)
                serial += 1
            }
        } else if let shown = current {
            if hasEnded && ahead.isEmpty && shown.end <= time {
                current = nil
                isPastEnd = true
            } else if !isStill {
                controls.countRepeated()
            }
        } else if hasEnded && ahead.isEmpty && !isStill {
            isPastEnd = true
        }
    }

    /// Draws the frame it shows now, if any, as its layout says.
    func draw(on picture: inout CanvasPicture) throws {
        guard let current else { return }
        let layout = controls.layout
        let opacity = Int((min(max(layout.alpha, 0), 1) * 255).rounded())
        guard opacity > 0 else { return }
        try layer.render(current.sample, serial: serial, layout: layout, input: name)
        layer.draw(on: &picture, x: layout.x, y: layout.y, opacity: opacity)
    }

    /// Reads one sample from the source through the stages (a file input), placing what comes out.
    private func readOne() throws {
        guard let source, let stages else { return }
        if let sample = try source.next() {
            try stages.process(sample) { place($0) }
        } else {
            try stages.finish { place($0) }
            hasEnded = true
        }
    }

    private func place(_ sample: MediaSample) {
        let own = sample.timing.presentationTime
        let time: MediaTime
        if own.isNumeric {
            let first = firstTime ?? own
            firstTime = first
            time = origin + (own - first)
        } else {
            time = nextTime ?? origin
        }
        let duration = sample.timing.duration
        nextTime = duration.isNumeric ? time + duration : time
        ahead.append((sample, time))
    }
}

@available(*, unavailable) extension CompositorInput: Sendable {}

/// The frames a live input's thread has read, for the compositor to take.
final class LiveVideoQueue: Sendable {
    /// The most frames kept; older ones are dropped (and counted) beyond it.
    static let capacity = 8

    struct State: Sendable {
        var frames: [MediaSample] = []
        /// The presentation time of the last frame queued.
        var lastTime = MediaTime.invalid
        var hasEnded = false
        var failure: MediaError?
    }

    let state = Locked(State())
    let stop = Atomic<Bool>(false)

    /// Everything queued so far, whether the input has ended, and its error.
    func take() -> ([MediaSample], Bool, MediaError?) {
        state.withLock { state in
            defer { state.frames = [] }
            return (state.frames, state.hasEnded, state.failure)
        }
    }
}

/// The thread of a live input: reads its source through its stages and queues the frames.
private final class LiveVideoReader {
    private let source: CheckedSource
    private let stages: MediaBin
    private let queue: LiveVideoQueue
    private let controls: VideoCompositor.Controls

    init(source: CheckedSource, stages: MediaBin, queue: LiveVideoQueue, controls: VideoCompositor.Controls) {
        self.source = source
        self.stages = stages
        self.queue = queue
        self.controls = controls
    }

    func run() {
        var failure: MediaError?
        do {
            while !queue.stop.load(ordering: .relaxed) {
                guard let sample = try source.next() else {
                    try stages.finish { enqueue($0) }
                    break
                }
                try stages.process(sample) { enqueue($0) }
            }
        } catch let error as MediaError {
            failure = error
        } catch {
            failure = MediaError(.invalidData, "\(error)")
        }
        queue.state.withLock { state in
            state.hasEnded = true
            state.failure = failure
        }
    }

    private func enqueue(_ sample: MediaSample) {
        let overflow = queue.state.withLock { state -> Int in
            state.frames.append(sample)
            state.lastTime = sample.timing.presentationTime
            let extra = max(0, state.frames.count - LiveVideoQueue.capacity)
            state.frames.removeFirst(extra)
            return extra
        }
        if overflow > 0 { controls.countDropped(overflow) }
    }
}
