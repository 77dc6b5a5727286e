#if canImport(Glibc)
    import Glibc
#endif
import MediaCore
import Testing

/// FileOutput on a named pipe: not seekable, and the pipe enlarged to 1 MiB so that a writer ahead of
/// its reader blocks once per megabyte instead of once per 64 KiB.
@Suite(.timeLimit(.minutes(2))) struct FileOutputPipeTests {
    @Test func enlargesAPipeAndWritesThroughIt() throws {
        let path = "/tmp/mediapipeline-fifo-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        // The read end first (non-blocking, so that neither open waits for the other).
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let output = try FileOutput(path: path)
        #expect(!output.isSeekable)
        let pipeSize = fcntl(reader, 1032 /* F_GETPIPE_SZ */)
        #expect(pipeSize == 1 << 20, "the pipe holds \(pipeSize) bytes")
        guard pipeSize >= 1 << 20 else { return }  // writing 300 KB would block on a 64 KiB pipe

        // 300 KB, more than a default pipe holds, written without a reader draining it.
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        try bytes.withUnsafeBytes { try output.write($0) }
        try output.close()
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            received += chunk[0..<n]
        }
        #expect(received == bytes)
    }
}
