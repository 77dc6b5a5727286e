// MediaFormats' readers and muxers: an .aac file read (whatever wrote it) and written back as ADTS, and the
// camera-like test pattern. `in.aac` is an example name: `swift build` compiles this program, nothing runs it.
import MediaPipeline

do {
    // snippet.adts
    // Read an .aac file, whatever wrote it: ID3 tags skipped, damage skipped and reported.
    let reader = try ADTSReader(path: "in.aac")
    // Write AAC packets as ADTS: a 7-byte header per packet, as FFmpeg's muxer writes it.
    let muxer = ADTSMuxer(output: try FileOutput(path: "out.aac"))
    while let packet = try reader.next() {  // one raw AAC access unit, AudioSpecificConfig in its format
        try muxer.write(packet)
    }
    try muxer.finish()
    for diagnostic in reader.diagnostics { print(diagnostic) }  // "resynchronised after skipping 37 bytes at …"
    // snippet.end
}

do {
    // snippet.pattern
    var camera = try TestPatternGenerator(width: 1280, height: 720, frameRate: FrameRate(30), length: .frames(300))
    while let frame = try camera.next() {  // yuv420p, pts n/30, keyframe
        print(frame.timing.presentationTime, frame.flags.contains(.keyframe))
    }
    // snippet.end
}
