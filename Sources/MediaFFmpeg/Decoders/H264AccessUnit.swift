internal import CMediaFFmpeg
import MediaBitstream
import MediaCore

/// One access unit on its way to an FFmpeg H.264 decoder: the sample, the parameter sets to put before
/// it, and the packet times, in ticks of the decoder's timescale. Made on the ``H264Decoder``'s thread
/// (``VideoFrameOutput/accept(_:format:scan:)``), decoded there or on a worker of ``H264GOPWorkers``.
struct H264AccessUnit: Sendable {
    /// Its index among the access units the decoder was given, from 0.
    let index: Int64
    /// The AVCC sample (checked by ``H264AccessUnitScan``).
    let sample: MediaSample
    /// Parameter-set NAL units to feed in-band before it.
    var inBand: [[UInt8]]
    /// The packet's presentation and decode times and duration, in ticks (`AV_NOPTS_VALUE` for none).
    let pts: Int64
    let dts: Int64
    let duration: Int64?
    let isKeyframe: Bool
}

/// What a walk over an AVCC access unit found: whether it holds an IDR picture (so that a closed group
/// of pictures starts there), its parameter sets, and the zero-length NAL units it skipped. The walk
/// is ``AVCCParser``'s, so a length past the end throws ``/MediaCore/MediaError/Code/truncated`` with
/// its byte offset before anything reaches the decoder.
struct H264AccessUnitScan {
    /// Whether a NAL unit of type 5 (a slice of an IDR picture) is in the access unit.
    private(set) var isIDR = false
    /// Whether a sequence or picture parameter set (types 7, 8) is in it.
    private(set) var hasParameterSets = false
    /// The Annex-B size of the access unit: a start code and the bytes of each NAL unit.
    private(set) var annexBSize = 0
    /// `AVCCParser`'s warning about zero-length NAL units, with the first one's offset, or `nil`.
    private(set) var emptyNALUnits: (warning: String, offset: Int64)?

    /// Walks `bytes`, an AVCC access unit.
    init(avcc bytes: UnsafeBufferPointer<UInt8>) throws(MediaError) {
        var parser = try AVCCParser()
        while let unit = try parser.next(in: bytes) {
            annexBSize += H264Bitstream.startCode.count + unit.range.count
            switch bytes[unit.range.lowerBound] & 0x1F {
            case 5: isIDR = true
            case 7, 8: hasParameterSets = true
            default: break
            }
        }
        emptyNALUnits = parser.emptyNALUnitWarning.map { ($0, parser.firstEmptyNALUnitOffset ?? 0) }
    }

    /// Calls `body` with each parameter-set NAL unit (header byte first) of `bytes`, already walked.
    static func forEachParameterSet(
        in bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        guard var parser = try? AVCCParser() else { return }
        while let unit = try? parser.next(in: bytes) {
            let type = bytes[unit.range.lowerBound] & 0x1F
            if type == 7 || type == 8 { body(UnsafeBufferPointer(rebasing: bytes[unit.range])) }
        }
    }
}

/// The parameter sets a stream has given so far (its format's, then in-band ones), in the order they
/// came, each once: what a decoder that starts in the middle of the stream (a worker's, at a later
/// group of pictures) needs before its first access unit. A set given again moves to the end, so that
/// of two sets with the same id the later one wins, as in the stream. Bounded: past 64 distinct sets
/// (a stream that changes them constantly) the oldest are dropped.
struct H264ParameterSetHistory {
    private(set) var units: [[UInt8]] = []

    /// Adds `unit` (copied), or moves it to the end when it is already there.
    mutating func note(_ unit: UnsafeBufferPointer<UInt8>) {
        if let last = units.last, last.elementsEqual(unit) { return }
        if let at = units.firstIndex(where: { $0.elementsEqual(unit) }) {
            units.append(units.remove(at: at))  // the same array: nothing copied
            return
        }
        units.append(Array(unit))
        if units.count > 64 { units.removeFirst(units.count - 64) }
    }

    /// Adds each of `parameters`' sets.
    mutating func note(_ parameters: H264Parameters) {
        for unit in parameters.sequenceParameterSets + parameters.pictureParameterSets {
            unit.withUnsafeBufferPointer { note($0) }
        }
    }
}
