import Synchronization

/// A mailbox for a running video encoder's target bit rate, shared between threads: what
/// VideoToolbox's `kVTCompressionPropertyKey_AverageBitRate` is when set on a session that is already
/// compressing, or GStreamer's `x264enc bitrate` property changed in the PLAYING state.
///
/// ```swift
/// let control = try BitRateControl(bitRate: 2_500_000)
/// let encoder = try H264Encoder(settings: settings, bitRateControl: control)  // the encoder reads it
/// try control.setBitRate(1_200_000)    // from any thread: applied before the next frame encoded
/// ```
///
/// - Writers: anyone, from any thread (an `AdaptiveBitRate` policy in a `LiveStreamSink`, both in
///   MediaStreaming; the app).
///   ``setBitRate(_:)`` refuses a rate outside ``validRange`` with ``MediaError/Code/invalidArgument``.
/// - Reader: the encoder, on its own stage thread, once per frame (one atomic load; no lock, no
///   allocation). It compares the target with what it applied last and reconfigures its rate control
///   only when they differ, so writing the same value again costs nothing. The control is only a
///   mailbox: the encoder is never touched from the writer's thread.
/// - The last write wins; intermediate targets written between two frames are never applied.
///
/// The target is the long-term average in bits per second. How an encoder moves its other limits with
/// it (VBV maximum rate and buffer) is the encoder's business (see `H264Encoder`).
public final class BitRateControl: Sendable {
    /// The rates a target may take, in bits per second: 1 kb/s (encoders count in kilobits) to 1 Gb/s.
    public static let validRange = 1_000...1_000_000_000

    /// The target the control was created with.
    public let initialBitRate: Int
    private let target: Atomic<Int>

    /// A control whose target starts at `bitRate` bits per second.
    ///
    /// - Throws: ``MediaError/Code/invalidArgument`` when `bitRate` is outside ``validRange``.
    public init(bitRate: Int) throws(MediaError) {
        try Self.check(bitRate)
        initialBitRate = bitRate
        target = Atomic(bitRate)
    }

    /// The target now, in bits per second.
    public var bitRate: Int { target.load(ordering: .acquiring) }

    /// Sets the target: the encoder applies it before the next frame it encodes.
    ///
    /// - Throws: ``MediaError/Code/invalidArgument`` when `bitRate` is outside ``validRange`` (the
    ///   target is then unchanged).
    public func setBitRate(_ bitRate: Int) throws(MediaError) {
        try Self.check(bitRate)
        target.store(bitRate, ordering: .releasing)
    }

    private static func check(_ bitRate: Int) throws(MediaError) {
        guard validRange.contains(bitRate) else {
            throw MediaError(.invalidArgument, "a target bit rate of \(bitRate) b/s is outside \(validRange)")
        }
    }
}
