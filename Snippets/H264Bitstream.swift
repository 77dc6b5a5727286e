// H.264 as MediaPipeline carries it (AVCC samples, parameter sets in the format) and as a `.h264` file
// holds it (Annex B): a test pattern encoded with libx264, written as Annex B, then one access unit taken apart.
import MediaPipeline

// snippet.encode
var camera = try TestPatternGenerator(width: 640, height: 360, frameRate: FrameRate(30), length: .frames(30))
let encoder = CheckedStage(try H264Encoder())
let muxer = CheckedSink(AnnexBMuxer(output: try FileOutput(path: "pattern.h264")))
var accessUnits: [MediaSample] = []
while let frame = try camera.next() {
    try encoder.process(frame) { accessUnit in
        accessUnits.append(accessUnit); try muxer.write(accessUnit)
    }
}
try encoder.finish { accessUnit in
    accessUnits.append(accessUnit); try muxer.write(accessUnit)
}
try muxer.finish()
// snippet.end

// snippet.inspect
guard let first = accessUnits.first, let h264 = first.format.video?.h264 else {
    throw MediaError(.invalidData, "no H.264")
}
print(h264.profile, h264.level)  // 100 30: High, level 3.0, from the SPS
let avcC = try AVCDecoderConfigurationRecord(
    sequenceParameterSets: h264.sequenceParameterSets, pictureParameterSets: h264.pictureParameterSets)
print(avcC.bytes.count, avcC.lengthSizeMinusOne + 1)  // the `avcC` box's payload; 4-byte lengths
for unit in try H264Bitstream.avccNALUnits(first.data, lengthSize: 4) {
    print(H264NALUnitType(rawValue: unit[unit.startIndex]), unit.count)  // SEI, then the IDR slice
}
let annexB = try H264Bitstream.avccToAnnexB(first.data)  // start codes instead of lengths; no SPS/PPS added
print(Array(annexB.prefix(4)))  // [0, 0, 0, 1]
// snippet.end

// snippet.avcc
// One AVCC sample: an access unit delimiter (2 bytes), then a zero-length NAL unit.
let sample: [UInt8] = [0, 0, 0, 2, 0x09, 0xF0, 0, 0, 0, 0]
var parser = try AVCCParser()
while let unit = try parser.next(in: sample) {
    print(H264Bitstream.nalUnitType(of: sample[unit.range]))  // AUD (9)
}
print(parser.emptyNALUnitWarning ?? "")  // skipped 1 zero-length AVCC NAL unit (the first at byte 6)
// snippet.end
