/// Where an MP3 packet starts in the file (`AudioFileStreamSeek` for MP3), from the best source the
/// stream has given.
///
/// 1. A Xing tag (not `Info`) with a frame count, byte count and table of contents: the packet's share
///    of the duration, as a percentage `p`, is looked up in the TOC with linear interpolation between
///    entries (as LAME's and Fraunhofer's readers do), and the offset is `dataOffset + TOC(p) / 256 *
///    audio bytes`: LAME builds the TOC from the audio frames only, and FFmpeg counts its index from the
///    end of the tag's frame. Estimated, to 1/256 of the file: on a 3-minute LAME -V2 file (4.3 MB)
///    the parser landed within 29 packets of the target, mean 8.3 (basing it on the tag frame, or
///    scaling by the tag's byte count instead, changed the mean by less than 0.3). Near the end an
///    estimate can fall past the last frame.
/// 2. A VBRI table: the runs before the packet's run are summed, plus the fraction of that run, from the
///    VBRI frame's start (as Fraunhofer's reader does) and never before `dataOffset`. Estimated.
/// 3. Otherwise (constant bit rate, an `Info` tag, or no tag), arithmetic on the frames seen so far:
///    - every frame the same bit rate, none padded, and `coefficient * bitRate / sampleRate` a whole
///      number (e.g. 128 kbit/s at 48 or 32 kHz): `dataOffset + packet * frameLength`, exact;
///    - every frame the same bit rate, with padding (44.1 kHz): `dataOffset + floor(packet *
///      coefficient * bitRate / sampleRate) - 1`, estimated: encoders spread the padding so that a
///      frame starts within a byte of `packet` times the mean length (LAME and FFmpeg: 0 to +1 byte;
///      the -1 lands at most 2 bytes early whichever way an encoder rounds, and the parser skips them);
///    - bit rates that vary (VBR without a tag): the mean frame length seen so far, estimated.
///
/// Packet 0 is always `dataOffset`, exact. A packet at or past a known packet count has no offset.
struct MP3SeekIndex: Sendable {
    /// The first audio frame's offset.
    var dataOffset: Int64 = 0
    /// The packet count a tag gave.
    var packetCount: Int64?
    /// The Xing TOC with the audio bytes it scales (the tag's byte count minus its own frame).
    var xing: (toc: [UInt8], audioBytes: Int64)?
    /// The VBRI table, the VBRI frame's offset and frames per entry.
    var vbri: (toc: [Int64], frameOffset: Int64, framesPerEntry: Int)?

    /// The bit-rate index shared by every frame seen so far, or `nil` once two differ (or before any).
    private var uniformBitRate: Int?
    private var sawVaryingBitRate = false
    private var sawPadding = false
    /// The first frame's length coefficient, bit rate and sample rate, for the constant-rate arithmetic.
    private var shape: (coefficient: Int64, bitRate: Int64, sampleRate: Int64, unpaddedLength: Int64)?
    /// Audio frames and bytes seen so far.
    private var framesSeen: Int64 = 0
    private var bytesSeen: Int64 = 0

    /// Records an audio frame the parser emitted.
    mutating func record(_ header: MP3FrameHeader, length: Int) {
        if shape == nil {
            shape = (
                Int64(header.lengthCoefficient), Int64(header.bitRate), Int64(header.sampleRate),
                Int64(length - (header.hasPadding ? 1 : 0))
            )
            uniformBitRate = header.bitRateIndex
        } else if uniformBitRate != header.bitRateIndex {
            sawVaryingBitRate = true
        }
        if header.hasPadding { sawPadding = true }
        framesSeen += 1
        bytesSeen += Int64(length)
    }

    /// Where `packet` starts, or `nil` when it is past the known count or no frame has been seen.
    func offset(forPacket packet: Int64) -> AudioFileStreamSeekOffset? {
        guard packet >= 0 else { return nil }
        if let packetCount, packet >= packetCount { return nil }
        if packet == 0 { return AudioFileStreamSeekOffset(byteOffset: dataOffset, isEstimated: false) }
        if let packetCount, packetCount > 0, let xing {
            return AudioFileStreamSeekOffset(
                byteOffset: dataOffset
                    + Self.tocOffset(xing.toc, packet: packet, of: packetCount, bytes: xing.audioBytes),
                isEstimated: true)
        }
        if let vbri, vbri.framesPerEntry > 0 {
            let run = Int(min(packet / Int64(vbri.framesPerEntry), Int64(vbri.toc.count)))
            // The table's entries (up to 2^48 each) come from the file: sums and products saturate.
            let add = { (a: Int64, b: Int64) -> Int64 in
                let (sum, overflow) = a.addingReportingOverflow(b)
                return overflow ? .max : sum
            }
            var offset = vbri.toc.prefix(run).reduce(vbri.frameOffset, add)
            if run < vbri.toc.count {
                let (part, overflow) = vbri.toc[run].multipliedReportingOverflow(
                    by: packet % Int64(vbri.framesPerEntry))
                offset = add(offset, overflow ? .max : part / Int64(vbri.framesPerEntry))
            }
            return AudioFileStreamSeekOffset(byteOffset: max(dataOffset, offset), isEstimated: true)
        }
        guard let shape, framesSeen > 0 else { return nil }
        if !sawVaryingBitRate {
            let numerator = shape.coefficient * shape.bitRate
            if !sawPadding && numerator % shape.sampleRate == 0 {
                let (distance, overflow) = packet.multipliedReportingOverflow(by: shape.unpaddedLength)
                guard !overflow, distance < Int64.max - dataOffset else { return nil }
                return AudioFileStreamSeekOffset(byteOffset: dataOffset + distance, isEstimated: false)
            }
            let (product, overflow) = packet.multipliedReportingOverflow(by: numerator)
            guard !overflow, shape.sampleRate > 0 else { return nil }
            let estimate = product / shape.sampleRate
            return AudioFileStreamSeekOffset(byteOffset: max(dataOffset, dataOffset + estimate - 1), isEstimated: true)
        }
        let mean = Double(bytesSeen) / Double(framesSeen)
        let estimate = Double(packet) * mean
        guard estimate < Double(Int64.max / 2) else { return nil }
        return AudioFileStreamSeekOffset(byteOffset: dataOffset + Int64(estimate), isEstimated: true)
    }

    /// The byte offset from the first audio frame of `packet` of `count` by the Xing TOC: percent
    /// `p = 100 * packet / count`, the entry `a = floor(p)` and the next (256 after the last),
    /// interpolated, in 256ths of `bytes`.
    static func tocOffset(_ toc: [UInt8], packet: Int64, of count: Int64, bytes: Int64) -> Int64 {
        guard toc.count == 100, count > 0 else { return 0 }
        let percent = min(100, max(0, Double(packet) * 100 / Double(count)))
        let a = min(99, Int(percent))
        let fa = Double(toc[a])
        let fb = a < 99 ? Double(toc[a + 1]) : 256
        let fx = fa + (fb - fa) * (percent - Double(a))
        return Int64(fx / 256 * Double(bytes))
    }
}
