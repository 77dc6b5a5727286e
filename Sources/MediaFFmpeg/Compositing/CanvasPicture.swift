import MediaCore

/// The yuv420p picture a ``VideoCompositor`` draws on: three tightly packed planes, cleared to the
/// background before each frame, and the two ways a layer lands on it (copied, or blended by alpha as
/// FFmpeg's `overlay` blends).
struct CanvasPicture {
    let width: Int
    let height: Int
    private(set) var planes: [[UInt8]]
    private let background: (y: UInt8, u: UInt8, v: UInt8)

    init(_ canvas: VideoCompositor.Canvas) {
        width = canvas.width
        height = canvas.height
        background = canvas.background.yuv
        planes = [
            [UInt8](repeating: background.y, count: width * height),
            [UInt8](repeating: background.u, count: width * height / 4),
            [UInt8](repeating: background.v, count: width * height / 4)
        ]
    }

    /// Back to the background, in place (each frame goes out as a copy: see ``VideoCompositor``).
    mutating func clear() {
        let values = [background.y, background.u, background.v]
        for plane in 0..<3 {
            planes[plane].withUnsafeMutableBufferPointer { $0.update(repeating: values[plane]) }
        }
    }

    /// One plane of a layer: its pixels, their stride, and its size in that plane.
    struct LayerPlane {
        var base: UnsafePointer<UInt8>
        var stride: Int
        var width: Int
        var height: Int
    }

    /// Draws a layer of luma size `width`×`height` at (`x`, `y`) (even), clipped to the canvas: copied
    /// where `alpha` is nil and `opacity` 255, otherwise blended by the layer's alpha plane × `opacity`.
    mutating func draw(
        luma: LayerPlane, cb: LayerPlane, cr: LayerPlane, alpha: LayerPlane?, at x: Int, y: Int, opacity: Int
    ) {
        guard opacity > 0 else { return }
        // The visible part, in luma pixels of the layer.
        let left = max(0, -x)
        let top = max(0, -y)
        let right = min(luma.width, width - x)
        let bottom = min(luma.height, height - y)
        guard left < right, top < bottom else { return }
        let canvasWidth = width
        if alpha == nil && opacity == 255 {
            Self.copy(
                luma, into: &planes[0], stride: canvasWidth, left: left, top: top, right: right, bottom: bottom, x: x,
                y: y)
            for (index, plane) in [(1, cb), (2, cr)] {
                Self.copy(
                    plane, into: &planes[index], stride: canvasWidth / 2, left: left / 2, top: top / 2,
                    right: (right + 1) / 2, bottom: (bottom + 1) / 2, x: x / 2, y: y / 2)
            }
            return
        }
        // Luma: each pixel by its own alpha.
        planes[0].withUnsafeMutableBufferPointer { canvas in
            guard let out = canvas.baseAddress else { return }
            for row in top..<bottom {
                let source = luma.base + row * luma.stride
                let destination = out + (y + row) * canvasWidth + x
                let alphaRow = alpha.map { $0.base + row * $0.stride }
                for column in left..<right {
                    let a = Self.alpha(alphaRow?[column] ?? 255, opacity)
                    destination[column] = Self.blend(destination[column], source[column], a)
                }
            }
        }
        // Chroma: by the mean alpha of the 2×2 luma pixels (fewer at the layer's odd edges).
        for (index, plane) in [(1, cb), (2, cr)] {
            planes[index].withUnsafeMutableBufferPointer { canvas in
                guard let out = canvas.baseAddress else { return }
                for row in (top / 2)..<((bottom + 1) / 2) {
                    let source = plane.base + row * plane.stride
                    let destination = out + (y / 2 + row) * (canvasWidth / 2) + x / 2
                    for column in (left / 2)..<((right + 1) / 2) {
                        let a: Int
                        if let alpha {
                            let first = alpha.base + 2 * row * alpha.stride + 2 * column
                            let hasRight = 2 * column + 1 < alpha.width
                            let hasBelow = 2 * row + 1 < alpha.height
                            var sum = Int(first[0])
                            var count = 1
                            if hasRight {
                                sum += Int(first[1])
                                count += 1
                            }
                            if hasBelow {
                                sum += Int(first[alpha.stride])
                                count += 1
                            }
                            if hasRight && hasBelow {
                                sum += Int(first[alpha.stride + 1])
                                count += 1
                            }
                            a = Self.alpha(UInt8(count == 4 ? sum >> 2 : sum / count), opacity)
                        } else {
                            a = opacity
                        }
                        destination[column] = Self.blend(destination[column], source[column], a)
                    }
                }
            }
        }
    }

    /// The layer's alpha × the opacity, 0…255.
    @inline(__always) private static func alpha(_ pixel: UInt8, _ opacity: Int) -> Int {
        opacity == 255 ? Int(pixel) : (Int(pixel) * opacity + 127) / 255
    }

    /// `(d·(255−a) + s·a) / 255`, rounded as FFmpeg's `FAST_DIV255`.
    @inline(__always) private static func blend(_ destination: UInt8, _ source: UInt8, _ alpha: Int) -> UInt8 {
        let mixed = Int(destination) * (255 - alpha) + Int(source) * alpha
        return UInt8(truncatingIfNeeded: ((mixed + 128) * 257) >> 16)
    }

    private static func copy(
        _ plane: LayerPlane, into canvas: inout [UInt8], stride: Int, left: Int, top: Int, right: Int, bottom: Int,
        x: Int, y: Int
    ) {
        let count = min(right, plane.width) - left
        guard count > 0 else { return }
        canvas.withUnsafeMutableBufferPointer { out in
            guard let base = out.baseAddress else { return }
            for row in top..<min(bottom, plane.height) {
                (base + (y + row) * stride + x + left).update(
                    from: plane.base + row * plane.stride + left, count: count)
            }
        }
    }
}
