import Foundation

/// A bounded wait that ran out: `description` says what never happened and how long it was waited for.
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What was waited for and for how long: "waited 30 seconds for the recording to begin, in vain".
    public let description: String
}

/// Polls `condition` every `interval` until it holds; `false` when it still does not after `timeout`.
///
/// The bound is a hang guard, not a timing assertion: give it 10–30 times what the event normally
/// takes, so that a slow machine (sanitizers, a loaded CI runner) waits longer instead of failing.
/// Tests order events with these waits, never with fixed sleeps. Unavailable in async code, where it
/// would block a cooperative thread: there the async overload is chosen.
@available(*, noasync, message: "use the async overload: this one blocks its thread")
public func poll(
    timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(10), until condition: () throws -> Bool
) rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while try !condition() {
        guard clock.now < deadline else { return false }
        clock.sleepBlocking(for: interval)
    }
    return true
}

/// ``poll(timeout:every:until:)`` for async tests: sleeps with `Task.sleep`, so that a task the
/// condition depends on (one collecting events) keeps its cooperative thread. (A name of its own: with
/// one name, a synchronous condition in async code resolves to the blocking overload.)
public func pollAsync(
    timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(10),
    until condition: () async throws -> Bool
) async rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while try await !condition() {
        guard clock.now < deadline else { return false }
        try? await Task.sleep(for: interval)
    }
    return true
}

/// Waits until `condition` holds (``poll(timeout:every:until:)``); throws ``WaitTimedOut`` naming
/// `event` (what was waited for, "the recording to begin") when it does not within `timeout`.
@available(*, noasync, message: "use the async overload: this one blocks its thread")
public func waitUntil(
    _ event: String, timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(10),
    _ condition: () throws -> Bool
) throws {
    guard try poll(timeout: timeout, every: interval, until: condition) else {
        throw WaitTimedOut(description: "waited \(timeout) for \(event), in vain")
    }
}

/// ``waitUntil(_:timeout:every:_:)`` for async tests (``pollAsync(timeout:every:until:)``).
public func waitUntilAsync(
    _ event: String, timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async throws {
    guard try await pollAsync(timeout: timeout, every: interval, until: condition) else {
        throw WaitTimedOut(description: "waited \(timeout) for \(event), in vain")
    }
}

/// The size of the file at `path` in bytes; 0 while it does not exist.
public func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
}

extension ContinuousClock {
    /// Blocks the calling thread for `duration` (for synchronous polling loops).
    fileprivate func sleepBlocking(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
