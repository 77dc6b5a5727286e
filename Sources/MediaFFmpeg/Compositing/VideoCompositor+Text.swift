import Foundation
public import MediaCore

extension VideoCompositor {
    /// Text drawn on the canvas: a caption, a lower third, a clock or a timecode. Rendered by FFmpeg's
    /// `drawtext` (FreeType, fonts found by fontconfig) into a layer with alpha, one per canvas frame.
    public struct TextOverlay: Sendable, Hashable {
        /// What the text says.
        public enum Content: Sendable, Hashable {
            /// This string, as it is (no `%` expansion).
            case string(String)
            /// The canvas frame's timecode, `HH:MM:SS:FF` at the canvas rate, from `00:00:00:00`.
            case timecode
            /// The canvas frame's time, `H:MM:SS.mmm`.
            case presentationTime
            /// The wall-clock time when the frame is drawn, `HH:MM:SS`.
            case clock
        }

        /// What it says.
        public var content: Content
        /// A fontconfig pattern (`"Sans"`, `"DejaVu Sans:style=Bold"`), or a font file's path.
        public var font: String
        /// The font's size in pixels.
        public var size: Int
        /// The text's colour.
        public var color: Color
        /// The box behind the text, or `nil` for none.
        public var box: Color?
        /// Pixels of box around the text.
        public var boxBorder: Int

        /// Text saying `content` in `font` at `size` pixels, `color`, on a `box` if given.
        public init(
            _ content: Content, font: String = "Sans", size: Int = 32, color: Color = .white, box: Color? = nil,
            boxBorder: Int = 8
        ) {
            self.content = content
            self.font = font
            self.size = size
            self.color = color
            self.box = box
            self.boxBorder = boxBorder
        }

        /// The layer's height: a line of text and its box's border on both sides, even.
        var layerHeight: Int { (size * 3 / 2 + 2 * boxBorder + 1) & ~1 }
    }
}

extension VideoCompositor.Input {
    /// A text layer: `text` drawn from the top left of `layout` (its width: the rest of the canvas's
    /// width), shown from the start until removed.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a size outside 4…1000 pixels, or text
    ///   that cannot be written to its temporary file.
    public static func text(
        _ text: VideoCompositor.TextOverlay, on canvas: VideoCompositor.Canvas,
        layout: VideoCompositor.Layout = VideoCompositor.Layout()
    ) throws(MediaError) -> VideoCompositor.Input {
        guard (4...1000).contains(text.size), text.boxBorder >= 0 else {
            throw MediaError(
                .invalidArgument,
                "text is 4...1000 pixels high with a border of 0 or more, not \(text.size) and \(text.boxBorder)")
        }
        let width = max(16, (canvas.width - max(0, layout.x)) & ~1)
        let height = text.layerHeight
        let rate = canvas.frameRate
        func hex(_ color: VideoCompositor.Color) -> String {
            String(format: "0x%02X%02X%02X", color.red, color.green, color.blue)
        }
        var options = [
            "fontcolor=\(hex(text.color))", "fontsize=\(text.size)", "x=\(text.boxBorder)", "y=\(text.boxBorder)"
        ]
        if text.font.hasPrefix("/") {
            options.append("fontfile=\(escape(text.font))")
        } else {
            options.append("font=\(escape(text.font))")
        }
        if let box = text.box { options += ["box=1", "boxcolor=\(hex(box))", "boxborderw=\(text.boxBorder)"] }
        var file: String?
        switch text.content {
        case .string(let string):
            // Through a file: no escaping of the user's text, which may hold any character.
            let path = NSTemporaryDirectory() + "mediapipeline-text-\(UUID().uuidString).txt"
            guard FileManager.default.createFile(atPath: path, contents: Data(string.utf8)) else {
                throw MediaError(.invalidArgument, "cannot write the overlay's text to \(path)")
            }
            file = path
            options += ["textfile=\(escape(path))", "expansion=none"]
        case .timecode:
            options += ["timecode=00\\\\:00\\\\:00\\\\:00", "rate=\(rate.numerator)/\(rate.denominator)"]
        case .presentationTime:
            options.append("text=%{pts\\\\:hms}")
        case .clock:
            options.append("text=%{localtime\\\\:%T}")
        }
        // Drawn on a transparent layer of the text's own colour, so that its anti-aliased edges blend
        // towards the text's colour, not black.
        let description =
            "color=c=\(hex(text.color))@0:s=\(width)x\(height):r=\(rate.numerator)/\(rate.denominator),format=rgba,drawtext=\(options.joined(separator: ":"))"
        let source = try FilterGraphSource(
            description, duration: nil,
            onBuilt: file.map { path in { try? FileManager.default.removeItem(atPath: path) } })
        var placed = layout
        placed.width = nil
        placed.height = nil
        return VideoCompositor.Input(source: source, stages: [], layout: placed, offset: .zero, isStill: true)
    }

    /// A value for a filter option in a graph description: `\`, `'`, `:`, `,`, `;`, `[` and `]` escaped.
    private static func escape(_ value: String) -> String {
        var escaped = ""
        for character in value {
            if character == "\\" {
                escaped += "\\\\\\\\"  // a backslash, through both levels of unescaping
            } else {
                if "':,;[]".contains(character) { escaped += "\\\\" }
                escaped.append(character)
            }
        }
        return escaped
    }
}
