import MediaBitstream

/// The RIFF chunk ids the WAV writer and the WAVE stream parser look for, as bytes to compare with a
/// file's.
extension FourCC {
    static let riff: [UInt8] = Array("RIFF".utf8)
    static let rf64: [UInt8] = Array("RF64".utf8)
    static let bw64: [UInt8] = Array("BW64".utf8)
    static let wave: [UInt8] = Array("WAVE".utf8)
    static let fmt: [UInt8] = Array("fmt ".utf8)
    static let fact: [UInt8] = Array("fact".utf8)
    static let data: [UInt8] = Array("data".utf8)
}
