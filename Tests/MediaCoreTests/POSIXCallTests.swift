import Glibc
import Synchronization
import Testing

@testable import MediaCore

/// Counts SIGUSR1 deliveries; a global so that the C signal handler captures nothing.
private let interrupts = Atomic<Int>(0)

@Suite("POSIXCall", .timeLimit(.minutes(2)))
struct POSIXCallTests {
    @Test("a read interrupted by a signal (no SA_RESTART) is retried and returns the data")
    func readRetriesEINTR() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interrupts.add(1, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: the blocked read fails with EINTR
        var previous = sigaction()
        #expect(sigaction(SIGUSR1, &action, &previous) == 0)
        defer { sigaction(SIGUSR1, &previous, nil) }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGUSR1)
        var oldMask = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &unblock, &oldMask)
        defer { pthread_sigmask(SIG_SETMASK, &oldMask, nil) }
        let reader = pthread_self()
        let writeEnd = ends[1]
        let before = interrupts.load(ordering: .relaxed)
        var helper = pthread_t()
        let started = pthread_create(
            &helper, nil,
            { argument in
                let pair = argument!.load(as: (pthread_t, Int32).self)
                argument!.deallocate()
                usleep(100_000)
                pthread_kill(pair.0, SIGUSR1)  // while the read blocks
                usleep(100_000)
                var byte: UInt8 = 42
                _ = write(pair.1, &byte, 1)
                return nil
            },
            {
                let argument = UnsafeMutableRawPointer.allocate(
                    byteCount: MemoryLayout<(pthread_t, Int32)>.size,
                    alignment: MemoryLayout<(pthread_t, Int32)>.alignment)
                argument.storeBytes(of: (reader, writeEnd), as: (pthread_t, Int32).self)
                return argument
            }())
        try #require(started == 0)
        defer { pthread_join(helper, nil) }
        var byte: UInt8 = 0
        let n = try POSIXCall.check("read", path: "pipe") { read(ends[0], &byte, 1) }
        #expect(n == 1)
        #expect(byte == 42)
        #expect(interrupts.load(ordering: .relaxed) > before)
    }

    @Test("a failing write names the call, the path and its errno")
    func failureNamesCallAndErrno() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        var byte: UInt8 = 1
        // Writing to the read end of a pipe fails with EBADF.
        let error = #expect(throws: MediaError.self) {
            try POSIXCall.check("write", path: "the pipe", at: 7) { write(ends[0], &byte, 1) }
        }
        #expect(error?.code == .io)
        #expect(error?.message.contains("write on the pipe") == true)
        #expect(error?.message.contains("(errno \(EBADF))") == true)
        #expect(error?.byteOffset == 7)
    }

    @Test("FileInput's reads go through the funnel: a failing read names read, the path, errno and offset")
    func fileInputReadFailureNamesTheCall() throws {
        // A directory opens for reading, and then every read fails with EISDIR.
        let input = try FileInput(path: "/tmp")
        let whole = #expect(throws: MediaError.self) { try input.read(upTo: 16) }
        #expect(whole?.code == .io)
        #expect(whole?.message.contains("read on /tmp failed") == true)
        #expect(whole?.message.contains("(errno \(EISDIR))") == true)
        #expect(whole?.byteOffset == 0)
        var buffer = [UInt8](repeating: 0, count: 16)
        let into = #expect(throws: MediaError.self) {
            try buffer.withUnsafeMutableBytes { raw in _ = try input.read(into: raw) }
        }
        #expect(into?.message.contains("(errno \(EISDIR))") == true)
    }
}
