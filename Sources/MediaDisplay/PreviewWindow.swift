internal import CSDL2
import MediaCore

/// The owner of one SDL window, its renderer and its texture: created, used and destroyed on a preview's
/// window thread only (hence not `Sendable`), every SDL object destroyed in `deinit`.
final class PreviewWindow {
    private let window: OpaquePointer
    private let renderer: OpaquePointer
    private var texture: OpaquePointer?
    /// The size and pixel format `texture` was made for.
    private var textureShape: (width: Int, height: Int, pixels: PixelFormat)?
    /// Whether `texture` samples its nearest texel (the picture drawn at its own size) rather than
    /// filtering linearly (the picture scaled).
    private var samplesNearest = false

    /// Opens a resizable window of `width` × `height` titled `title`, with an accelerated renderer when
    /// there is one and SDL's software renderer otherwise (an X server without GL, such as Xvfb).
    init(title: String, width: Int, height: Int) throws(MediaError) {
        let position = mp_sdl_windowpos_undefined()
        let flags = SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_SHOWN.rawValue
        guard
            let window = SDL_CreateWindow(
                title, position, position, Int32(clamping: width), Int32(clamping: height), flags)
        else { throw MediaError(.unavailable, "VideoPreviewSink: cannot open a window: \(sdlError())") }
        guard
            let renderer = SDL_CreateRenderer(window, -1, 0)
                ?? SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue)
        else {
            let reason = sdlError()
            SDL_DestroyWindow(window)
            throw MediaError(.unavailable, "VideoPreviewSink: cannot draw in the window: \(reason)")
        }
        (self.window, self.renderer) = (window, renderer)
        // Smooth scaling when the window is not the picture's size.
        SDL_SetHint(SDL_HINT_RENDER_SCALE_QUALITY, "linear")
    }

    deinit {
        if let texture { SDL_DestroyTexture(texture) }
        SDL_DestroyRenderer(renderer)
        SDL_DestroyWindow(window)
    }

    /// The size of the drawing area, in pixels.
    var outputSize: (width: Int, height: Int) {
        var (width, height): (Int32, Int32) = (0, 0)
        SDL_GetRendererOutputSize(renderer, &width, &height)
        return (Int(width), Int(height))
    }

    /// Copies `frame` into the texture (made anew when its size or format changed).
    func upload(_ frame: MediaSample, _ format: VideoFormat, _ pixels: PixelFormat) throws(MediaError) {
        if textureShape.map({ $0.width != format.width || $0.height != format.height || $0.pixels != pixels })
            ?? true
        {
            if let texture { SDL_DestroyTexture(texture) }
            texture = SDL_CreateTexture(
                renderer, Self.sdlFormat(pixels), Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                Int32(clamping: format.width), Int32(clamping: format.height))
            textureShape = texture == nil ? nil : (format.width, format.height, pixels)
            samplesNearest = false
        }
        guard let texture else {
            throw MediaError(.unavailable, "VideoPreviewSink: cannot make a \(format) texture: \(sdlError())")
        }
        let rows = format.bytesPerRow.map { Int32(clamping: $0) }
        let code: Int32 = frame.withUnsafeBytes(plane: 0) { y in
            switch pixels {
            case .yuv420p:
                return frame.withUnsafeBytes(plane: 1) { u in
                    frame.withUnsafeBytes(plane: 2) { v in
                        SDL_UpdateYUVTexture(
                            texture, nil, y.bindMemory(to: UInt8.self).baseAddress, rows[0],
                            u.bindMemory(to: UInt8.self).baseAddress, rows[1],
                            v.bindMemory(to: UInt8.self).baseAddress, rows[2])
                    }
                }
            case .nv12:
                return frame.withUnsafeBytes(plane: 1) { uv in
                    SDL_UpdateNVTexture(
                        texture, nil, y.bindMemory(to: UInt8.self).baseAddress, rows[0],
                        uv.bindMemory(to: UInt8.self).baseAddress, rows[1])
                }
            default:
                return SDL_UpdateTexture(texture, nil, y.baseAddress, rows[0])
            }
        }
        guard code == 0 else {
            throw MediaError(.unavailable, "VideoPreviewSink: cannot copy a frame to the window: \(sdlError())")
        }
    }

    /// Draws the texture letterboxed in the window (its display aspect `aspect`, width over height, kept)
    /// and shows it.
    func present(aspect: Double) {
        let (width, height) = outputSize
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderClear(renderer)
        if let texture, width > 0, height > 0 {
            var target = SDL_Rect()
            if Double(width) / Double(height) > aspect {
                let fitted = Int((Double(height) * aspect).rounded())
                target = SDL_Rect(x: Int32((width - fitted) / 2), y: 0, w: Int32(fitted), h: Int32(height))
            } else {
                let fitted = Int((Double(width) / aspect).rounded())
                target = SDL_Rect(x: 0, y: Int32((height - fitted) / 2), w: Int32(width), h: Int32(fitted))
            }
            setSampling(texture, nearest: textureShape.map { $0.width == target.w && $0.height == target.h } ?? false)
            SDL_RenderCopy(renderer, texture, nil, &target)
        }
        SDL_RenderPresent(renderer)
    }

    /// Drawn at its own size, the picture samples its nearest texel; scaled, it is filtered linearly.
    ///
    /// Deviation from ffplay, which always filters linearly: at its own size the luma is the same either
    /// way, and only 4:2:0's half-size chroma planes differ: the nearest texel replicates each chroma
    /// sample over its 2×2 block, as FFmpeg's own unscaled YUV → RGB conversions do, where linear filtering
    /// blends it with its neighbours. With a software renderer (Mesa's llvmpipe on Xvfb, or any machine without a GPU driver) linear
    /// sampling is most of the drawing: playing a 1080p30 file took a third less CPU with it off
    /// (Benchmarks/README.md).
    private func setSampling(_ texture: OpaquePointer, nearest: Bool) {
        guard nearest != samplesNearest else { return }
        if SDL_SetTextureScaleMode(texture, nearest ? SDL_ScaleModeNearest : SDL_ScaleModeLinear) == 0 {
            samplesNearest = nearest
        }
    }

    /// Whether the window can show `pixels`.
    static func supports(_ pixels: PixelFormat) -> Bool { [.yuv420p, .nv12, .rgb24, .bgra].contains(pixels) }

    private static func sdlFormat(_ pixels: PixelFormat) -> UInt32 {
        switch pixels {
        case .yuv420p: return SDL_PIXELFORMAT_IYUV.rawValue
        case .nv12: return SDL_PIXELFORMAT_NV12.rawValue
        case .rgb24: return SDL_PIXELFORMAT_RGB24.rawValue
        default: return SDL_PIXELFORMAT_BGRA32.rawValue
        }
    }
}

/// SDL's description of its last error.
func sdlError() -> String { String(cString: SDL_GetError()) }
