import MediaCore
import MediaFFmpeg
import MediaTestSupport
import Testing

/// VideoEncoderProbe: which encoders the build has and which run here, found by encoding a frame.
@Suite(.timeLimit(.minutes(5)), .ffmpegLeakGate) struct VideoEncoderProbeTests {
    /// The software encoders work; an encoder that does not says why; a name the build lacks says so;
    /// the hardware preference falls back to the software encoder when no hardware encoder works, and
    /// picks the first that works otherwise (the machine decides which: the expectation follows the probe).
    @Test func probesSayWhatRunsAndFallBackToSoftware() throws {
        let results = VideoEncoderProbe.probeAll()
        #expect(results.count == VideoEncoderFamily.allCases.reduce(0) { $0 + $1.hardwareEncoders.count + 1 })
        for family in VideoEncoderFamily.allCases {
            let software = try #require(results.first { $0.encoderName == family.softwareEncoder })
            #expect(software.works && !software.isHardware && software.reason == nil, "\(software)")
            let firstWorking = family.hardwareEncoders.first { name in
                results.first { $0.encoderName == name }?.works == true
            }
            #expect(
                VideoEncoderProbe.encoderName(for: family, preferringHardware: true)
                    == firstWorking ?? family.softwareEncoder)
            #expect(VideoEncoderProbe.encoderName(for: family, preferringHardware: false) == family.softwareEncoder)
        }
        for result in results where !result.works {
            #expect(result.reason?.isEmpty == false, "\(result)")
            #expect("\(result)".contains(result.encoderName))
        }
        let missing = VideoEncoderProbe.probe("hevc_nonexistent")
        #expect(!missing.isInBuild && !missing.works && missing.reason == "not in this FFmpeg build")
        let notVideo = VideoEncoderProbe.probe("aac")
        #expect(notVideo.isInBuild && !notVideo.works)
    }

    /// The encoder a family makes is its software encoder by default and encodes.
    @Test func aFamilyMakesItsEncoder() throws {
        for family in VideoEncoderFamily.allCases {
            let encoder = try family.encoder()
            #expect(encoder.encoderName == family.softwareEncoder)
        }
        #expect(try VideoEncoderFamily.hevc.encoder() is HEVCEncoder)
        #expect(try VideoEncoderFamily.vp9.encoder() is VP9Encoder)
    }
}
