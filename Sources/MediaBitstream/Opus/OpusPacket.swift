/// The length of an Opus packet from its TOC byte (RFC 6716 3.1), as FFmpeg's opus parser reads it.
package enum OpusPacket {
    /// Frames at 48 kHz the packet decodes to, or `nil` when it is too short to say (an empty packet,
    /// code 3 without its frame count byte).
    package static func frameCount<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> Int?
    where Bytes.Index == Int {
        guard let toc = bytes.first else { return nil }
        let config = Int(toc >> 3)  // config: mode and frame size
        let frameSize: Int  // in 1/400 s units of 120 frames: 2.5 ms = 120 frames at 48 kHz
        switch config {
        case 0..<12: frameSize = [480, 960, 1920, 2880][config & 3]  // SILK-only: 10, 20, 40, 60 ms
        case 12..<16: frameSize = [480, 960][config & 1]  // Hybrid: 10, 20 ms
        default: frameSize = [120, 240, 480, 960][config & 3]  // CELT-only: 2.5, 5, 10, 20 ms
        }
        let frames: Int
        switch toc & 0x03 {  // c: frame count code
        case 0: frames = 1
        case 1, 2: frames = 2
        default:
            guard bytes.count >= 2 else { return nil }
            frames = Int(bytes[bytes.startIndex + 1] & 0x3F)  // M: frame count
        }
        return frameSize * frames
    }
}
