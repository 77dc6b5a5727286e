import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// AudioDecoder against the ffmpeg CLI: the packets of files made by ffmpeg, lame and sox decode to
/// exactly what `ffmpeg -i file -f s16le|s32le|f32le -` prints (bit for bit, the MP3 and MP2 float
/// output included), with the trims the packets carry honoured.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioDecoderTests {
    struct Case: Sendable, CustomStringConvertible {
        var file: String
        var encoder: [String]
        var rate: Int
        var channels: Int
        var fourCC: String
        var output: PCMFormat
        /// MP4/MOV: ffmpeg 5.1 drops the edit list's priming but decodes the end padding the
        /// container's last `stts` entry excludes, so ours is its prefix of the container's length.
        var ffmpegKeepsEndPadding = false
        var description: String { "\(fourCC) in \(file) → \(output)" }

        /// The ffmpeg raw format `output` is.
        var raw: String { "\(output.sampleType)le" }
    }

    static let cases: [Case] = [
        Case(file: "alac.m4a", encoder: ["-c:a", "alac"], rate: 44_100, channels: 2, fourCC: "alac", output: .s16),
        Case(file: "alac.caf", encoder: ["-c:a", "alac"], rate: 48_000, channels: 1, fourCC: "alac", output: .s16),
        Case(
            file: "alac24.m4a", encoder: ["-c:a", "alac", "-sample_fmt", "s32p"], rate: 96_000, channels: 2,
            fourCC: "alac", output: PCMFormat(.s32)),
        Case(
            file: "alac24.caf", encoder: ["-c:a", "alac", "-sample_fmt", "s32p"], rate: 48_000, channels: 2,
            fourCC: "alac", output: PCMFormat(.s24)),
        Case(
            file: "ima4.aifc", encoder: ["-c:a", "adpcm_ima_qt"], rate: 44_100, channels: 2, fourCC: "ima4",
            output: .s16),
        Case(
            file: "ima4.caf", encoder: ["-c:a", "adpcm_ima_qt"], rate: 22_050, channels: 1, fourCC: "ima4", output: .s16
        ),
        Case(
            file: "ima4.mov", encoder: ["-c:a", "adpcm_ima_qt"], rate: 32_000, channels: 2, fourCC: "ima4", output: .s16
        ),
        Case(
            file: "ima.wav", encoder: ["-c:a", "adpcm_ima_wav"], rate: 44_100, channels: 2, fourCC: "ms\0\u{11}",
            output: .s16),
        Case(
            file: "ima-mono.wav", encoder: ["-c:a", "adpcm_ima_wav"], rate: 16_000, channels: 1, fourCC: "ms\0\u{11}",
            output: .s16),
        Case(file: "alaw.wav", encoder: ["-c:a", "pcm_alaw"], rate: 8_000, channels: 1, fourCC: "alaw", output: .s16),
        Case(file: "ulaw.caf", encoder: ["-c:a", "pcm_mulaw"], rate: 8_000, channels: 2, fourCC: "ulaw", output: .s16),
        Case(file: "ulaw.wav", encoder: ["-c:a", "pcm_mulaw"], rate: 11_025, channels: 1, fourCC: "ulaw", output: .s16),
        Case(file: "a.mp2", encoder: ["-c:a", "mp2"], rate: 48_000, channels: 2, fourCC: ".mp2", output: .f32),
        Case(
            file: "ffmpeg.mp3", encoder: ["-c:a", "libmp3lame"], rate: 44_100, channels: 2, fourCC: ".mp3", output: .f32
        ),
        Case(
            file: "mp3.mov", encoder: ["-c:a", "libmp3lame"], rate: 48_000, channels: 2, fourCC: ".mp3", output: .f32,
            ffmpegKeepsEndPadding: true)
    ]

    /// Same frames, same values, same count as the ffmpeg CLI: exact for every codec (the float
    /// decoders of MP3 and MP2 too, since both sides run FFmpeg's `mp3float`/`mp2float`: tolerance 0).
    @Test(arguments: cases)
    func decodesWhatTheFFmpegCLIDecodes(_ c: Case) throws {
        let dir = try TemporaryDirectory()
        let path = try DecoderFixture.ffmpeg(c.file, c.encoder, rate: c.rate, channels: c.channels, in: dir)
        let packets = try DecoderFixture.packets(path)
        let format = try #require(packets.first?.format.audio)
        #expect(format.codec == .other(fourCC: DecoderFixture.code(c.fourCC)))
        #expect(format.sampleRate == c.rate && format.channelCount == c.channels)

        let decoded = try PCM.run(AudioDecoder(outputFormat: c.output), packets)
        #expect(
            decoded.allSatisfy {
                $0.format.audio == .pcm(c.output, sampleRate: c.rate, channelLayout: format.channelLayout)
            })
        var reference = [UInt8](try ExternalTool.decode(path, format: c.raw))
        let ours = DecoderFixture.bytes(decoded)
        let bytesPerFrame = c.output.sampleType.bytesPerSample * c.channels
        if c.ffmpegKeepsEndPadding {
            #expect(ours.count / bytesPerFrame == c.rate, "the 1 s that went in")
            #expect(reference.count > ours.count)
            reference = Array(reference.prefix(ours.count))
        }
        #expect(ours.count / bytesPerFrame == reference.count / bytesPerFrame, "frames: ours vs ffmpeg")
        let decodedFrames = decoded.reduce(0) { $0 + $1.frameCount }
        let validFrames = packets.reduce(0) { $0 + $1.validFrameCount }
        if c.fourCC == "alac", c.file.hasSuffix(".caf") {
            // FFmpeg's CAF reader gives ALAC packets no duration and ignores the packet table's
            // remainder, so the demuxer counts the short last packet as a full one (4096 frames).
            #expect(validFrames > decodedFrames && validFrames - decodedFrames < format.framesPerPacket)
        } else {
            #expect(decodedFrames == validFrames)
        }
        let same = ours == reference
        #expect(
            same,
            "first difference at byte \(zip(ours, reference).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)"
        )
    }

    /// MP3 from the LAME CLI (its Xing/LAME tag gives the delay and padding the demuxer turns into
    /// trims): MPEG-1 Layer III stereo and MPEG-2 Layer III mono (576 frames a packet) at 22.05 and
    /// 16 kHz (at 64 kbit/s: at 32 the frames are too small for LAME to write its tag).
    @Test(arguments: [
        (44_100, 2, [String]()), (22_050, 1, ["-m", "m", "-b", "64"]), (16_000, 1, ["-m", "m", "-b", "64"])
    ])
    func lameMP3DecodesExactlyAsFFmpeg(rate: Int, channels: Int, options: [String]) throws {
        let dir = try TemporaryDirectory()
        let path = try DecoderFixture.lame("lame.mp3", rate: rate, channels: channels, in: dir, options: options)
        let packets = try DecoderFixture.packets(path)
        let format = try #require(packets.first?.format.audio)
        #expect(format.framesPerPacket == (rate >= 32_000 ? 1152 : 576))
        #expect(packets.first?.trimAtStart ?? 0 > 0, "the LAME tag's delay is a trim")
        let decoded = try PCM.run(AudioDecoder(outputFormat: .f32), packets)
        let ours = DecoderFixture.floats(DecoderFixture.bytes(decoded))
        let reference = DecoderFixture.floats([UInt8](try ExternalTool.decode(path, format: "f32le")))
        #expect(ours.count == reference.count)
        #expect(ours.count == Int(Double(rate) * 1.3) * channels, "the LAME tag's length")
        let worst = zip(ours, reference).map { abs($0 - $1) }.max() ?? 1
        #expect(worst == 0, "largest difference \(worst)")
    }

    /// IMA4 packets sliced out of a CAF file's `data` chunk by hand, several 34-bytes-per-channel
    /// packets to a sample, and IMA ADPCM blocks out of a WAV file's `data` chunk, one or three blocks
    /// to a sample (the last one partial): the same PCM as the ffmpeg CLI.
    @Test(arguments: [1, 3, 7])
    func handSlicedBlocksDecodeExactly(group: Int) throws {
        let dir = try TemporaryDirectory()
        // IMA4 in CAF: the data chunk is a 4-byte edit count, then 34 × channels bytes per 64 frames.
        let caf = try DecoderFixture.ffmpeg("ima4.caf", ["-c:a", "adpcm_ima_qt"], rate: 44_100, channels: 2, in: dir)
        let cafData = try DecoderFixture.cafChunk("data", in: [UInt8](try Data(contentsOf: URL(fileURLWithPath: caf))))
            .dropFirst(4)
        let imaFormat = AudioFormat(
            codec: .other(fourCC: DecoderFixture.code("ima4")), sampleRate: 44_100, channelLayout: .stereo,
            framesPerPacket: 64)
        let ima4 = stride(from: cafData.startIndex, to: cafData.endIndex, by: 68 * group).enumerated().map {
            index, start in
            let bytes = Array(cafData[start..<min(start + 68 * group, cafData.endIndex)])
            return MediaSample(
                format: .audio(imaFormat), data: bytes,
                timing: .audio(
                    startFrame: Int64(index * 64 * group), frameCount: bytes.count / 68 * 64, sampleRate: 44_100),
                frameCount: bytes.count / 68 * 64)
        }
        let decoded = try PCM.run(AudioDecoder(outputFormat: .s16), ima4)
        let same = DecoderFixture.bytes(decoded) == [UInt8](try ExternalTool.decode(caf, format: "s16le"))
        #expect(same)
        #expect(decoded.count == ima4.count, "one output sample per input sample")

        // IMA ADPCM in WAV: 256-byte blocks (505 frames) of mono, the file cut 100 bytes short so that
        // the last block is partial (ffmpeg decodes the whole 4-byte groups of what remains).
        let whole = try DecoderFixture.ffmpeg(
            "ima.wav", ["-c:a", "adpcm_ima_wav", "-block_size", "256"], rate: 16_000, channels: 1, in: dir)
        let file = Array([UInt8](try Data(contentsOf: URL(fileURLWithPath: whole))).dropLast(100))
        let wav = dir.file("cut.wav")
        try Data(file).write(to: URL(fileURLWithPath: wav))
        let fmt = try DecoderFixture.riffChunk("fmt ", in: file).bytes
        let blockAlign = Int(fmt[fmt.startIndex + 12]) | Int(fmt[fmt.startIndex + 13]) << 8
        let framesPerBlock = Int(fmt[fmt.startIndex + 18]) | Int(fmt[fmt.startIndex + 19]) << 8
        #expect(blockAlign == 256 && framesPerBlock == 505)
        let data = try DecoderFixture.riffChunk("data", in: file).bytes
        let wavFormat = AudioFormat(
            codec: .other(fourCC: 0x6D73_0011), sampleRate: 16_000, channelLayout: .mono,
            framesPerPacket: framesPerBlock)
        let blocks = stride(from: data.startIndex, to: data.endIndex, by: blockAlign * group).map { start in
            let bytes = Array(data[start..<min(start + blockAlign * group, data.endIndex)])
            let frames =
                bytes.count / blockAlign * framesPerBlock
                + (bytes.count % blockAlign > 4 ? 1 + (bytes.count % blockAlign - 4) / 4 * 8 : 0)
            return MediaSample(
                format: .audio(wavFormat), data: bytes,
                timing: .audio(startFrame: 0, frameCount: frames, sampleRate: 16_000), frameCount: frames)
        }
        #expect(data.count % blockAlign != 0, "the last block is partial")
        let decodedWAV = try PCM.run(AudioDecoder(outputFormat: .s16), blocks)
        // (Not -xerror: ffmpeg calls the short last packet corrupt, and decodes it.)
        let reference = try ExternalTool.check("ffmpeg", ["-v", "error", "-i", wav, "-f", "s16le", "-"]).stdout
        let sameWAV = DecoderFixture.bytes(decodedWAV) == [UInt8](reference)
        #expect(sameWAV)
    }

    /// Raw A-law and µ-law bytes cut at uneven frame counts decode as `ffmpeg -f alaw|mulaw` decodes the file.
    @Test(arguments: ["alaw", "mulaw"])
    func rawLogPCMDecodesExactly(_ raw: String) throws {
        let dir = try TemporaryDirectory()
        let path = try DecoderFixture.ffmpeg("in.\(raw)", ["-f", raw], rate: 8_000, channels: 2, in: dir)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let format = AudioFormat(
            codec: .other(fourCC: DecoderFixture.code(raw == "alaw" ? "alaw" : "ulaw")), sampleRate: 8_000,
            channelLayout: .stereo, framesPerPacket: 1)
        var samples: [MediaSample] = []
        var offset = 0
        let pattern = [1, 37, 500, 1023, 4096]
        while offset < bytes.count {
            let count = min(pattern[samples.count % pattern.count] * 2, bytes.count - offset)
            samples.append(
                MediaSample(
                    format: .audio(format), data: Array(bytes[offset..<(offset + count)]),
                    timing: .audio(startFrame: Int64(offset / 2), frameCount: count / 2, sampleRate: 8_000),
                    frameCount: count / 2))
            offset += count
        }
        let decoded = try PCM.run(AudioDecoder(outputFormat: .s16), samples)
        let reference = try ExternalTool.decode(path, format: "s16le", extra: ["-f", raw, "-ar", "8000", "-ac", "2"])
        let same = DecoderFixture.bytes(decoded) == [UInt8](reference)
        #expect(same)
        #expect(decoded.map(\.timing.presentationTime) == samples.map(\.timing.presentationTime))
    }
}
