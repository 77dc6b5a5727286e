public import MediaCore

extension VideoCompositor {
    /// The picture every input is drawn on: its size, rate and background.
    public struct Canvas: Sendable, Hashable {
        /// Width in pixels (even, 16…8192).
        public var width: Int
        /// Height in pixels (even, 16…8192).
        public var height: Int
        /// Frames per second of the composition.
        public var frameRate: FrameRate
        /// What shows where no input covers the canvas.
        public var background: Color

        /// A `width`×`height` canvas at `frameRate`, `background` where nothing is drawn.
        public init(width: Int, height: Int, frameRate: FrameRate = FrameRate(30), background: Color = .black) {
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.background = background
        }

        func validated() throws(MediaError) -> Canvas {
            guard (16...8192).contains(width), (16...8192).contains(height), width % 2 == 0, height % 2 == 0 else {
                throw MediaError(
                    .invalidArgument, "a canvas is 16...8192 pixels each way and even (4:2:0), not \(width)x\(height)")
            }
            guard frameRate.isValid else {
                throw MediaError(.invalidArgument, "a canvas needs a positive frame rate, not \(frameRate)")
            }
            return self
        }
    }

    /// An opaque colour, given in 8-bit RGB and drawn as BT.601 limited-range Y′CbCr (FFmpeg's `color`
    /// source does the same: black is Y 16, Cb Cr 128).
    public struct Color: Sendable, Hashable {
        /// Red, 0…255.
        public var red: UInt8
        /// Green, 0…255.
        public var green: UInt8
        /// Blue, 0…255.
        public var blue: UInt8

        /// The colour of these 8-bit components.
        public init(red: UInt8, green: UInt8, blue: UInt8) {
            self.red = red
            self.green = green
            self.blue = blue
        }

        /// Black.
        public static let black = Color(red: 0, green: 0, blue: 0)
        /// White.
        public static let white = Color(red: 255, green: 255, blue: 255)

        /// Y′, Cb and Cr in BT.601 limited range.
        var yuv: (y: UInt8, u: UInt8, v: UInt8) {
            let r = Double(red)
            let g = Double(green)
            let b = Double(blue)
            let y = 16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255
            let u = 128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255
            let v = 128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255
            return (UInt8(y.rounded()), UInt8(u.rounded()), UInt8(v.rounded()))
        }
    }

    /// A rectangle of an input's picture, in its pixels.
    public struct Crop: Sendable, Hashable {
        /// Left edge.
        public var x: Int
        /// Top edge.
        public var y: Int
        /// Width.
        public var width: Int
        /// Height.
        public var height: Int

        /// The rectangle at (`x`, `y`) of `width`×`height` pixels.
        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// Where and how an input is drawn. Set ``Controls/layout`` from any thread while the compositor runs:
    /// the change shows from the next canvas frame.
    public struct Layout: Sendable, Hashable {
        /// Left edge on the canvas (may be negative or past the edge: the part outside is not drawn).
        /// Rounded down to even on a 4:2:0 canvas, as FFmpeg's `overlay` does.
        public var x: Int
        /// Top edge on the canvas, as ``x``.
        public var y: Int
        /// Width on the canvas, or `nil` for the input's own (cropped) width.
        public var width: Int?
        /// Height on the canvas, or `nil` for the input's own (cropped) height.
        public var height: Int?
        /// Whether the picture keeps its shape inside `width`×`height` (fitted and centred) or is
        /// stretched to fill it.
        public var keepsAspectRatio: Bool
        /// Drawing order: higher is drawn later (on top); equal values draw in the order inputs were added.
        public var zIndex: Int
        /// Opacity 0…1, multiplied with the input's own alpha (a PNG's).
        public var alpha: Double
        /// The part of the input's picture to show, or `nil` for all of it.
        public var crop: Crop?

        /// A layout at (`x`, `y`) of `width`×`height` (`nil`: the input's own size).
        public init(
            x: Int = 0, y: Int = 0, width: Int? = nil, height: Int? = nil, keepsAspectRatio: Bool = true,
            zIndex: Int = 0, alpha: Double = 1, crop: Crop? = nil
        ) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
            self.keepsAspectRatio = keepsAspectRatio
            self.zIndex = zIndex
            self.alpha = alpha
            self.crop = crop
        }

        /// The whole canvas.
        public static func fullCanvas(_ canvas: Canvas, zIndex: Int = 0) -> Layout {
            Layout(x: 0, y: 0, width: canvas.width, height: canvas.height, zIndex: zIndex)
        }

        /// Picture-in-picture: the inset, `scale` of the canvas's width and height, in `corner` with
        /// `margin` pixels to the edges, above a full-canvas main picture.
        public static func inset(
            on canvas: Canvas, scale: Double = 0.25, corner: Corner = .bottomRight, margin: Int = 16
        ) -> Layout {
            let width = max(2, Int(Double(canvas.width) * scale) & ~1)
            let height = max(2, Int(Double(canvas.height) * scale) & ~1)
            let left = corner == .topLeft || corner == .bottomLeft
            let top = corner == .topLeft || corner == .topRight
            return Layout(
                x: left ? margin : canvas.width - width - margin, y: top ? margin : canvas.height - height - margin,
                width: width, height: height, zIndex: 1)
        }

        /// A `columns`×`rows` grid of equal cells filling the canvas, row by row: `count` layouts
        /// (at most columns × rows), each picture fitted into its cell.
        public static func grid(on canvas: Canvas, columns: Int, rows: Int, count: Int? = nil) -> [Layout] {
            guard columns > 0, rows > 0 else { return [] }
            let cellWidth = canvas.width / columns & ~1
            let cellHeight = canvas.height / rows & ~1
            return (0..<min(count ?? columns * rows, columns * rows)).map { index in
                Layout(
                    x: index % columns * cellWidth, y: index / columns * cellHeight, width: cellWidth,
                    height: cellHeight)
            }
        }
    }

    /// A corner of the canvas.
    public enum Corner: String, Sendable, Hashable, CaseIterable {
        /// Top left.
        case topLeft
        /// Top right.
        case topRight
        /// Bottom left.
        case bottomLeft
        /// Bottom right.
        case bottomRight
    }
}
