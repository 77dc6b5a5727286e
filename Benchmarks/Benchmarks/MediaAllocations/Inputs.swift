import MediaCore
import MediaFFmpeg
import MediaFormats

/// What the benchmarks read, generated once in memory: a tone, the test pattern, and what the library's
/// own encoders and muxers make of them. No files, no network, no devices.
struct Inputs: Sendable {
    /// 48 kHz stereo float PCM, 1024 frames a sample (one more than a run, to open a stage first).
    let floatPCM: [MediaSample]
    /// 48 kHz stereo 16-bit PCM, 1024 frames a sample.
    let int16PCM: [MediaSample]
    /// AAC-LC packets of ``floatPCM``, from ``AACEncoder``.
    let aacPackets: [MediaSample]
    /// 64×64 yuv420p frames of the test pattern.
    let videoFrames: [MediaSample]
    /// H.264 access units (AVCC) of ``videoFrames``, from ``H264Encoder`` on one thread.
    let h264Packets: [MediaSample]
    /// 300 + 1000 access units with an IDR every 30 (a streaming service's groups of pictures): the first
    /// 300 bring a parallel decoder to its steady state, the next 1000 are measured.
    let shortGOPPackets: [MediaSample]
    /// The first 1000 AAC packets as an ADTS stream.
    let adts: [UInt8]
    /// The first 1000 access units as an Annex-B stream.
    let annexB: [UInt8]
    /// 1000 NAL units (the access units' slices and parameter sets) with start codes.
    let nalUnits: [UInt8]
    /// The first 1000 video frames as a YUV4MPEG2 stream.
    let y4m: [UInt8]
    /// The first 1000 16-bit PCM samples as WAV, AIFF, and the first 1000 AAC packets as CAF.
    let wav: [UInt8]
    let aiff: [UInt8]
    let caf: [UInt8]

    init() throws {
        let count = samplesPerRun + 1
        var tone = try ToneGenerator(length: .frames(Int64(count * 1024)), framesPerSample: 1024)
        floatPCM = try Self.drain(&tone)
        var tone16 = try ToneGenerator(sampleType: .s16, length: .frames(Int64(count * 1024)), framesPerSample: 1024)
        int16PCM = try Self.drain(&tone16)
        aacPackets = try Self.apply(AACEncoder(bitRate: 128_000), to: floatPCM)
        var pattern = try TestPatternGenerator(width: 64, height: 64, length: .frames(Int64(count)))
        videoFrames = try Self.drain(&pattern)
        var settings = H264Encoder.Settings()
        settings.threads = 1
        h264Packets = try Self.apply(H264Encoder(settings: settings), to: videoFrames)
        var longer = try TestPatternGenerator(width: 64, height: 64, length: .frames(Int64(300 + count)))
        settings.maxKeyFrameInterval = 30
        shortGOPPackets = try Self.apply(H264Encoder(settings: settings), to: try Self.drain(&longer))

        let first = 0..<samplesPerRun
        adts = try Self.mux(aacPackets[first]) { ADTSMuxer(output: $0) }
        annexB = try Self.mux(h264Packets[first]) { AnnexBMuxer(output: $0) }
        y4m = try Self.mux(videoFrames[first]) { Y4MMuxer(output: $0) }
        wav = try Self.mux(int16PCM[first]) { WAVMuxer(output: $0) }
        aiff = try Self.mux(int16PCM[first]) { AIFFMuxer(output: $0) }
        caf = try Self.mux(aacPackets[first]) { CAFMuxer(output: $0) }
        nalUnits = Self.nalUnits(of: h264Packets, count: samplesPerRun)
    }

    /// Every sample of a source.
    private static func drain(_ source: inout some MediaSource) throws -> [MediaSample] {
        var samples: [MediaSample] = []
        while let sample = try source.next() { samples.append(sample) }
        return samples
    }

    /// Every sample a stage makes of `input`, its finish included.
    private static func apply(_ stage: some MediaStage, to input: [MediaSample]) throws -> [MediaSample] {
        var stage = stage
        var output: [MediaSample] = []
        for sample in input { try stage.process(sample) { output.append($0) } }
        try stage.finish { output.append($0) }
        return output
    }

    /// The bytes a muxer writes for `samples`.
    private static func mux<Muxer: MediaSink>(
        _ samples: ArraySlice<MediaSample>, _ make: (any MediaOutput) -> Muxer
    ) throws -> [UInt8] {
        let output = MemoryOutput()
        var muxer = make(output)
        for sample in samples { try muxer.write(sample) }
        try muxer.finish()
        return output.bytes
    }

    /// The first `count` NAL units of AVCC packets (4-byte lengths), each behind a 4-byte start code.
    private static func nalUnits(of packets: [MediaSample], count: Int) -> [UInt8] {
        var stream: [UInt8] = []
        var found = 0
        for packet in packets {
            let bytes = packet.data
            var offset = 0
            while offset + 4 <= bytes.count, found < count {
                let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
                let end = min(bytes.count, offset + 4 + length)
                stream += [0, 0, 0, 1]
                stream += bytes[(offset + 4)..<end]
                offset = end
                found += 1
            }
        }
        return stream
    }
}

/// The inputs, made on first use (before any measurement starts) and shared by every benchmark.
let sharedInputs = Result { try Inputs() }
