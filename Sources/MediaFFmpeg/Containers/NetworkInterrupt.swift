internal import CMediaFFmpeg
import Glibc
import MediaCore

/// What interrupts a network input's blocking calls: libavformat's interrupt callback
/// (`AVFormatContext.interrupt_callback`), which its protocols poll while they wait (about every
/// 100 ms), asks this object whether to give up: when the caller's ``/MediaCore/StopSignal`` was given,
/// or when the deadline armed before the call (``arm(seconds:)``) has passed.
///
/// Used on the thread that opens and reads the input only (the callback runs inside the blocking call,
/// on that thread), hence not `Sendable`; the stop signal is the one part other threads touch, and it is.
final class NetworkInterrupt {
    let stop: StopSignal?
    /// How long a read may wait for the next packet, in seconds.
    let readTimeout: Double
    /// Monotonic nanoseconds after which a blocking call gives up; 0 for no deadline.
    private var deadline: UInt64 = 0
    /// Whether a deadline has passed: for good, as the input is then broken (the demuxer may return the
    /// packets it held, and only a later read the end).
    private(set) var timedOut = false

    init(stop: StopSignal?, readTimeout: Double) {
        self.stop = stop
        self.readTimeout = readTimeout
    }

    /// Gives the next blocking calls until `seconds` from now.
    func arm(seconds: Double) {
        deadline = Self.now + UInt64(max(0, seconds) * 1_000_000_000)
    }

    /// No deadline.
    func disarm() { deadline = 0 }

    /// Whether the caller asked to stop.
    var isStopped: Bool { stop?.isRequested ?? false }

    /// Whether a blocking call should give up now.
    var shouldInterrupt: Bool {
        if isStopped { return true }
        if deadline != 0 && Self.now > deadline {
            timedOut = true
            return true
        }
        return false
    }

    /// The callback and its argument for libavformat; valid while this object lives.
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(callback: networkInterrupted, opaque: Unmanaged.passUnretained(self).toOpaque())
    }

    private static var now: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

@available(*, unavailable) extension NetworkInterrupt: Sendable {}

/// libavformat's interrupt callback: 1 to give up.
private func networkInterrupted(_ opaque: UnsafeMutableRawPointer?) -> Int32 {
    guard let opaque else { return 0 }
    return Unmanaged<NetworkInterrupt>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt ? 1 : 0
}
