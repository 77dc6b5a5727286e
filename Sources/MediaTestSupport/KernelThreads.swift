import Foundation

/// Threads of this process as the kernel lists them in `/proc/self/task`, for tests that check a
/// stage's worker threads really end (rather than that the test merely did not hang).
///
/// A thread is identified by its kernel id and its start time (field 22 of
/// `/proc/self/task/<id>/stat`, in clock ticks since boot), so that an id the kernel hands to a new
/// thread after the old one ended is not mistaken for the old thread.
public struct KernelThreads: Sendable, CustomStringConvertible {
    /// The threads watched: kernel id and start time.
    public private(set) var started: [Int32: UInt64] = [:]

    /// Watches the threads `ids` that are running now; returns `nil` when one of them is not (already
    /// ended, or not a thread of this process).
    public init?(running ids: [Int32]) {
        for id in ids {
            guard let start = Self.startTime(id) else { return nil }
            started[id] = start
        }
    }

    /// Watches the threads `ids`, those that have already ended included (they count as ended).
    public init(ids: [Int32]) {
        for id in ids { started[id] = Self.startTime(id) ?? 0 }
    }

    /// The start time of thread `id` of this process, or `nil` when there is no such thread.
    public static func startTime(_ id: Int32) -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/self/task/\(id)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After the name in parentheses: field 3 (state) onwards; the start time is field 22.
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }

    /// The watched threads still running.
    public var running: [Int32] {
        started.filter { id, start in start != 0 && Self.startTime(id) == start }.map(\.key).sorted()
    }

    /// Waits until every watched thread has ended, or `timeout` has passed; returns those still running.
    public func waitUntilEnded(timeout: Duration = .seconds(30)) -> [Int32] {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let left = running
            if left.isEmpty || clock.now >= deadline { return left }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    /// Polls `ids` until it gives at least `count` ids, or `timeout` has passed; returns the last answer.
    public static func waitForIDs(
        _ count: Int, timeout: Duration = .seconds(30), _ ids: () -> [Int32]
    ) -> [Int32] {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let now = ids()
            if now.count >= count || clock.now >= deadline { return now }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    public var description: String { "threads \(started.keys.sorted()), running \(running)" }
}
