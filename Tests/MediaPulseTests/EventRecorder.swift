import Foundation
import MediaPulse
import MediaTestSupport

/// Collects a monitor's events on a task, for tests that wait (bounded) for them. The waits sleep with
/// `Task.sleep`, not `usleep`: a test blocking its cooperative thread could starve the collecting task.
final class EventRecorder: Sendable {
    private let log = LockedBox<[AudioDeviceEvent]>([])
    private let ended = LockedBox(false)

    init(_ events: AsyncStream<AudioDeviceEvent>) {
        let (log, ended) = (log, ended)
        Task {
            for await event in events { log.value.append(event) }
            ended.value = true
        }
    }

    /// The events so far.
    var events: [AudioDeviceEvent] { log.value }
    /// Whether the stream has ended.
    var hasEnded: Bool { ended.value }

    /// Waits (bounded: `timeout` is a hang guard) until `condition` holds for the events so far; whether it did.
    func wait(_ timeout: Duration = .seconds(30), until condition: ([AudioDeviceEvent]) -> Bool) async -> Bool {
        await pollAsync(timeout: timeout, every: .milliseconds(5)) { condition(events) }
    }

    /// Waits (bounded: `timeout` is a hang guard) until the stream ends; whether it did.
    func waitUntilEnded(_ timeout: Duration = .seconds(30)) async -> Bool {
        await pollAsync(timeout: timeout, every: .milliseconds(5)) { hasEnded }
    }
}

extension [AudioDeviceEvent] {
    /// The device of the `.added` event for `name`, if any.
    func added(_ name: String) -> AudioDevice? {
        for case .added(let device) in self where device.name == name { return device }
        return nil
    }

    /// The device of the `.removed` event for `name`, if any.
    func removed(_ name: String) -> AudioDevice? {
        for case .removed(let device) in self where device.name == name { return device }
        return nil
    }

    /// The position of the first event satisfying `predicate`.
    func position(_ predicate: (AudioDeviceEvent) -> Bool) -> Int? { firstIndex(where: predicate) }
}
