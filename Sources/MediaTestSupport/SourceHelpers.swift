import Foundation
public import MediaCore

/// A source that, after its base ends, waits `stall` seconds before it ends too: a device that stops
/// delivering (its player killed, a camera unplugged) some time before it is gone.
public final class StallingSource: MediaSource {
    private var base: any MediaSource
    private let stall: Double

    /// `base`, then `stall` seconds of nothing, then its end.
    public init(_ base: any MediaSource, stall: Double) {
        self.base = base
        self.stall = stall
    }

    /// The base's samples; after its last, a wait of `stall` seconds, then `nil`.
    public func next() throws -> MediaSample? {
        if let sample = try base.next() { return sample }
        Thread.sleep(forTimeInterval: stall)
        return nil
    }
}

extension RawAudio {
    /// Every value of `source`'s float32 (interleaved) samples, in order.
    public static func floats(of source: any MediaSource) throws -> [Float] {
        var source = source
        var values: [Float] = []
        while let sample = try source.next() {
            sample.withUnsafeBytes { raw in
                for index in 0..<(raw.count / 4) {
                    values.append(
                        Float(
                            bitPattern: UInt32(
                                littleEndian: raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))))
                }
            }
        }
        return values
    }
}
