// soak-loop: the library opened, used and closed many times in one process (issue 14's soak).
//
//   soak-loop [RUNS] [DIRECTORY]     (default 10000 runs, in /tmp)
//
// Each run: av-encoder's main path in a MediaGraph (3 frames of the test pattern → H264Encoder and 0.1 s
// of a tone → AACEncoder, both into one ContainerMuxer .mp4 file), then each stream of the file →
// ContainerDemuxer → its decoder (H264Decoder, AACDecoder), every decoded frame counted; the file removed. After every run the FFmpeg objects alive
// (`FFmpegResources.liveCount`) must be 0 and the run must give the frames it gave the first time. The
// resident set (VmRSS) and open descriptors are sampled after the first 100 runs (warm: allocator
// arenas, x264's tables) and every 1,000 after; it fails (exit 1) when the last sample's RSS is more than
// 5 % above the warm one, a descriptor is left open, or an object leaks. One line per sample, then a
// summary line, on standard output.
#if canImport(Glibc)
    import Glibc
#endif
import MediaCore
import MediaFFmpeg
import MediaFormats

/// `VmRSS` of this process in KiB, from /proc/self/status.
func residentKiB() -> Int {
    guard let file = fopen("/proc/self/status", "r") else { return -1 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("VmRSS:") { return Int(text.split(separator: " ")[1]) ?? -1 }
    }
    return -1
}

/// Open file descriptors of this process.
func openDescriptors() -> Int {
    guard let directory = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(directory) }
    var count = -1  // the directory's own descriptor
    while let entry = readdir(directory) {
        if entry.pointee.d_name.0 != 0x2E { count += 1 }  // not "." or ".."
    }
    return count
}

/// Decoded frames of stream `index` of `path` through `decoder`.
func decodedFrames(_ path: String, stream index: Int, _ decoder: any MediaStage) throws -> Int64 {
    var pipeline = Pipeline(
        source: try ContainerDemuxer.streamSource(path: path, stream: index), stages: [decoder],
        sink: CollectingSink())
    return try pipeline.run().samplesWritten
}

/// One open/encode/close run; returns (audio frames decoded, video frames decoded).
func run(in directory: String, index: Int) throws -> (Int64, Int64) {
    let path = "\(directory)/soak-\(getpid())-\(index).mp4"
    defer { unlink(path) }
    // av-encoder's main path: a tone and the test pattern, encoded, into one MP4.
    var graph = MediaGraph()
    var settings = H264Encoder.Settings()
    settings.preset = "ultrafast"
    settings.threads = 1
    let pattern = try TestPatternGenerator(width: 64, height: 48, frameRate: FrameRate(25), length: .frames(3))
    let video = graph.addBranch("video", source: pattern, stages: [try H264Encoder(settings: settings)])
    let tone = try ToneGenerator(length: .duration(MediaTime(value: 1, timescale: 10)))
    let audio = graph.addBranch("audio", source: tone, stages: [try AACEncoder()])
    graph.addSink(try ContainerMuxer(path: path, format: .mp4), tracks: [video, audio])
    _ = try graph.runSynchronously()
    return (try decodedFrames(path, stream: 1, AACDecoder()), try decodedFrames(path, stream: 0, H264Decoder()))
}

func main() -> Int32 {
    let arguments = CommandLine.arguments
    let runs = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
    let directory = arguments.count > 2 ? arguments[2] : "/tmp"
    var warm: (rss: Int, descriptors: Int)?
    var first: (Int64, Int64)?
    var peak = 0
    do {
        for index in 1...runs {
            let counts = try run(in: directory, index: index)
            if first == nil { first = counts }
            guard counts == first! else {
                print("soak-loop: run \(index) decoded \(counts), the first run \(first!)")
                return 1
            }
            guard FFmpegResources.liveCount == 0 else {
                print("soak-loop: \(FFmpegResources.liveCount) FFmpeg objects alive after run \(index)")
                return 1
            }
            let rss = residentKiB()
            peak = max(peak, rss)
            if index == min(100, runs) || index % 1000 == 0 || index == runs {
                if warm == nil { warm = (rss, openDescriptors()) }
                print("run \(index): VmRSS \(rss) KiB, \(openDescriptors()) descriptors open")
            }
        }
    } catch {
        print("soak-loop: \(error)")
        return 1
    }
    guard let warm, let first else { return 1 }
    let last = residentKiB()
    let growth = Double(last - warm.rss) / Double(warm.rss) * 100
    let growthText = String(Int((growth * 10).rounded())).paddedTenths
    print(
        "soak-loop: \(runs) runs, \(first.0) audio + \(first.1) video frames decoded each, 0 FFmpeg objects alive, "
            + "VmRSS \(warm.rss) KiB after 100 runs → \(last) KiB (\(growthText) %), peak \(peak) KiB, "
            + "descriptors \(warm.descriptors) → \(openDescriptors())")
    return growth <= 5 && openDescriptors() <= warm.descriptors ? 0 : 1
}

extension String {
    /// Tenths written as a decimal: "123" → "12.3", "-4" → "-0.4".
    var paddedTenths: String {
        let negative = hasPrefix("-")
        var digits = negative ? String(dropFirst()) : self
        while digits.count < 2 { digits = "0" + digits }
        return (negative ? "-" : "") + digits.dropLast() + "." + digits.suffix(1)
    }
}

exit(main())
