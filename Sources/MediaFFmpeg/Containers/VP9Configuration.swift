internal import CMediaFFmpeg
import MediaBitstream

/// VP9's `vpcC` between FFmpeg's codec parameters and a ``/MediaCore/VideoFormat``: VP9 has no
/// extradata, so libavformat's MP4 muxer writes `vpcC` from `AVCodecParameters` (`profile`, `format`,
/// colours). A VP9 format carries the record as its configuration (``VP9Encoder`` makes it from the
/// opened encoder, ``ContainerDemuxer`` from the stream's parameters), and the muxer sets the
/// parameters back from it, so that a VP9 track copied or encoded into MP4 gets a complete `vpcC` (an
/// empty one makes libavformat refuse the file: "Empty VP Codec Configuration box").
enum VP9Configuration {
    /// The record for a stream of `pixels` and `profile` (`FF_PROFILE_UNKNOWN`: from the pixels) with
    /// the given colours; `nil` for a pixel format VP9 does not have.
    static func record(
        pixels: AVPixelFormat, profile: Int32, range: AVColorRange, primaries: AVColorPrimaries,
        transfer: AVColorTransferCharacteristic, matrix: AVColorSpace, location: AVChromaLocation
    ) -> VPCodecConfigurationRecord? {
        guard let descriptor = av_pix_fmt_desc_get(pixels) else { return nil }
        let depth = UInt8(descriptor.pointee.comp.0.depth)
        let (w, h) = (descriptor.pointee.log2_chroma_w, descriptor.pointee.log2_chroma_h)
        let chroma: VPCodecConfigurationRecord.ChromaSubsampling
        switch (w, h) {
        case (1, 1): chroma = location == AVCHROMA_LOC_TOPLEFT ? .colocated420 : .vertical420
        case (1, 0): chroma = .horizontal422
        case (0, 0): chroma = .none444
        default: return nil
        }
        let derived: UInt8 = (depth > 8 ? 2 : 0) + (chroma == .horizontal422 || chroma == .none444 ? 1 : 0)
        return VPCodecConfigurationRecord(
            profile: profile >= 0 && profile <= 3 ? UInt8(profile) : derived, bitDepth: depth,
            chromaSubsampling: chroma, fullRange: range == AVCOL_RANGE_JPEG,
            colourPrimaries: UInt8(clamping: primaries.rawValue),
            transferCharacteristics: UInt8(clamping: transfer.rawValue),
            matrixCoefficients: UInt8(clamping: matrix.rawValue))
    }

    /// The record for a demuxed VP9 stream's parameters, as its configuration.
    static func record(_ p: AVCodecParameters) -> [UInt8] {
        record(
            pixels: AVPixelFormat(rawValue: p.format), profile: p.profile, range: p.color_range,
            primaries: p.color_primaries, transfer: p.color_trc, matrix: p.color_space, location: p.chroma_location
        )?.bytes ?? []
    }

    /// Sets `par`'s profile, pixel format and colours from the record in `configuration` (nothing when it
    /// is not one).
    static func apply(_ configuration: [UInt8], to par: UnsafeMutablePointer<AVCodecParameters>) {
        guard let record = try? VPCodecConfigurationRecord(parsing: configuration) else { return }
        let formats: [VPCodecConfigurationRecord.ChromaSubsampling: [UInt8: AVPixelFormat]] = [
            .vertical420: [8: AV_PIX_FMT_YUV420P, 10: AV_PIX_FMT_YUV420P10LE, 12: AV_PIX_FMT_YUV420P12LE],
            .colocated420: [8: AV_PIX_FMT_YUV420P, 10: AV_PIX_FMT_YUV420P10LE, 12: AV_PIX_FMT_YUV420P12LE],
            .horizontal422: [8: AV_PIX_FMT_YUV422P, 10: AV_PIX_FMT_YUV422P10LE, 12: AV_PIX_FMT_YUV422P12LE],
            .none444: [8: AV_PIX_FMT_YUV444P, 10: AV_PIX_FMT_YUV444P10LE, 12: AV_PIX_FMT_YUV444P12LE]
        ]
        if let pixels = formats[record.chromaSubsampling]?[record.bitDepth] { par.pointee.format = pixels.rawValue }
        par.pointee.profile = Int32(record.profile)
        par.pointee.color_range = record.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        par.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(record.colourPrimaries))
        par.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(record.transferCharacteristics))
        par.pointee.color_space = AVColorSpace(rawValue: UInt32(record.matrixCoefficients))
        if record.chromaSubsampling == .colocated420 { par.pointee.chroma_location = AVCHROMA_LOC_TOPLEFT }
    }
}
