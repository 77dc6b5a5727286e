import Dispatch
import Synchronization

/// Runs `operation` in a task and waits for it on this thread, cancelling the task once `cancelWhen`
/// says so (polled ten times a second): for a synchronous command that drives async code.
public func blockingAwait<T: Sendable>(
    cancelWhen: () -> Bool, _ operation: sending @escaping @isolated(any) () async throws -> T
) throws -> T {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let task = Task {
        let result: Result<T, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
        done.signal()
    }
    var cancelled = false
    while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
        if !cancelled && cancelWhen() {
            cancelled = true
            task.cancel()
        }
    }
    guard let result = outcome.withLock({ $0 }) else { throw CancellationError() }
    return try result.get()
}
