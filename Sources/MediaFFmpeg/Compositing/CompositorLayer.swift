internal import CMediaFFmpeg
import MediaCore

/// One input's picture made ready for the canvas: copied into a frame, cropped, and scaled to the size
/// its layout gives (bicubic, into yuv420p, or yuva420p for a picture with alpha). Re-rendered only
/// when the input's frame or its layout changes. Lives on the compositor's thread.
final class CompositorLayer {
    private let source: Frame
    private let view: Frame
    private let scaled: Frame
    private var sourceKey: SourceKey?
    private var scaler: Scaler?
    private var scalerKey: ScalerKey?
    /// What was last rendered: the input's frame serial and the layout.
    private var rendered: (serial: Int, layout: VideoCompositor.Layout)?
    /// Whether the picture is drawn as it is, cropped or not (no scaling needed).
    private var drawsView = false
    /// Whether the picture is cropped (drawn or scaled from ``view``, not ``source``).
    private var isCropped = false
    /// The rendered picture's size and where it sits inside the layout's box.
    private(set) var width = 0
    private(set) var height = 0
    private(set) var offset = (x: 0, y: 0)
    private(set) var hasAlpha = false

    private struct SourceKey: Equatable {
        var pixels: PixelFormat
        var width: Int
        var height: Int
    }

    private struct ScalerKey: Equatable {
        var source: Int32
        var width: Int
        var height: Int
        var destination: Int32
        var outWidth: Int
        var outHeight: Int
    }

    init() throws(MediaError) {
        source = try Frame()
        view = try Frame()
        scaled = try Frame()
    }

    /// Renders `sample` (frame number `serial` of its input) as `layout` says, unless it is rendered already.
    func render(_ sample: MediaSample, serial: Int, layout: VideoCompositor.Layout, input: String) throws(MediaError) {
        if let rendered, rendered.serial == serial, rendered.layout == layout { return }
        guard case .video(let format) = sample.format, let pixels = format.pixelFormat else {
            throw MediaError.formatMismatch(stage: input, expected: "raw video", actual: sample.format)
        }
        try sample.validateVideoLayout(format, index: Int64(serial))
        let key = SourceKey(pixels: pixels, width: format.width, height: format.height)
        if key != sourceKey {
            av_frame_unref(source.raw)
            try source.allocateVideo(pixels, width: format.width, height: format.height)
            sourceKey = key
        }
        try source.copyPicture(from: sample, format: format)

        // The crop, clipped to the picture and to even edges for subsampled chroma.
        let crop = layout.crop ?? VideoCompositor.Crop(x: 0, y: 0, width: format.width, height: format.height)
        let left = min(max(0, crop.x), format.width - 1) & ~1
        let top = min(max(0, crop.y), format.height - 1) & ~1
        let cropWidth = max(1, min(crop.width, format.width - left))
        let cropHeight = max(1, min(crop.height, format.height - top))
        // A cropped view of the picture (a reference to its buffers, its data pointers moved), only when
        // cropping: a reference costs an allocation per plane.
        isCropped = left != 0 || top != 0 || cropWidth != format.width || cropHeight != format.height
        if isCropped {
            av_frame_unref(view.raw)
            try check(av_frame_ref(view.raw, source.raw), calling: "av_frame_ref", .outOfMemory)
            view.raw.pointee.crop_left = Int(left)
            view.raw.pointee.crop_top = Int(top)
            view.raw.pointee.crop_right = Int(format.width - left - cropWidth)
            view.raw.pointee.crop_bottom = Int(format.height - top - cropHeight)
            try check(
                av_frame_apply_cropping(view.raw, Int32(AV_FRAME_CROP_UNALIGNED)), calling: "av_frame_apply_cropping")
        }

        // The size in the layout's box: fitted (shape kept, centred) or stretched.
        let box = (width: layout.width ?? cropWidth, height: layout.height ?? cropHeight)
        var size = box
        if layout.keepsAspectRatio, layout.width != nil || layout.height != nil {
            let aspect = format.pixelAspectRatio.map { Double($0.horizontalSpacing) / Double($0.verticalSpacing) } ?? 1
            let shownWidth = Double(cropWidth) * aspect
            let scale = min(Double(box.width) / shownWidth, Double(box.height) / Double(cropHeight))
            size = (Int((shownWidth * scale).rounded()), Int((Double(cropHeight) * scale).rounded()))
        }
        size = (max(2, min(size.width, 16384) & ~1), max(2, min(size.height, 16384) & ~1))
        offset = ((box.width - size.width) / 2 & ~1, (box.height - size.height) / 2 & ~1)
        width = size.width
        height = size.height
        hasAlpha = pixels == .bgra
        drawsView = pixels == .yuv420p && size.width == cropWidth && size.height == cropHeight
        if !drawsView { try scale(pixels, cropWidth, cropHeight) }
        rendered = (serial, layout)
    }

    private func scale(_ pixels: PixelFormat, _ cropWidth: Int, _ cropHeight: Int) throws(MediaError) {
        let destination = hasAlpha ? AV_PIX_FMT_YUVA420P : AV_PIX_FMT_YUV420P
        let key = ScalerKey(
            source: pixels.avPixelFormat.rawValue, width: cropWidth, height: cropHeight,
            destination: destination.rawValue, outWidth: width, outHeight: height)
        if key != scalerKey {
            scaler = try Scaler(
                from: pixels.avPixelFormat, width: cropWidth, height: cropHeight, to: destination, width: width,
                height: height, flags: SWS_BICUBIC)
            av_frame_unref(scaled.raw)
            scaled.raw.pointee.format = destination.rawValue
            scaled.raw.pointee.width = Int32(width)
            scaled.raw.pointee.height = Int32(height)
            try check(av_frame_get_buffer(scaled.raw, 0), calling: "av_frame_get_buffer", .outOfMemory)
            scalerKey = key
        }
        try scaler?.scale(isCropped ? view : source, into: scaled)
    }

    /// Draws the rendered picture on `picture` with its box's top left at (`x`, `y`), at `opacity` 0…255.
    func draw(on picture: inout CanvasPicture, x: Int, y: Int, opacity: Int) {
        let frame = drawsView ? (isCropped ? view : source) : scaled
        func plane(_ index: Int32, _ width: Int, _ height: Int) -> CanvasPicture.LayerPlane? {
            guard let base = mp_frame_data(frame.raw, index) else { return nil }
            return CanvasPicture.LayerPlane(
                base: UnsafePointer(base), stride: Int(mp_frame_linesize(frame.raw, index)), width: width,
                height: height)
        }
        let chroma = ((width + 1) / 2, (height + 1) / 2)
        guard let luma = plane(0, width, height), let cb = plane(1, chroma.0, chroma.1),
            let cr = plane(2, chroma.0, chroma.1)
        else { return }
        picture.draw(
            luma: luma, cb: cb, cr: cr, alpha: hasAlpha ? plane(3, width, height) : nil,
            at: (x + offset.x) & ~1, y: (y + offset.y) & ~1, opacity: opacity)
    }
}

@available(*, unavailable) extension CompositorLayer: Sendable {}
