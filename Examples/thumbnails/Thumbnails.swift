import ArgumentParser
import ExampleSupport
import MediaPipeline

/// `thumbnails FILE (--at T | --every S | --sheet CxR) --output PATH [--size WxH] [--keyframe]`.
struct Thumbnails: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnails",
        abstract: "Write still pictures of a movie as PNG or JPEG files, like AVAssetImageGenerator.",
        discussion: """
            --at T writes the frame at T (seconds, or [HH:]MM:SS.fraction, from the start of the file): \
            the first frame presented at or after T, the frame `ffmpeg -ss T -i FILE -frames:v 1` gives, \
            pixel for pixel. --keyframe takes the last keyframe at or before T instead (faster: only \
            that frame is decoded). --every S writes the frames at 0, S, 2S, ... to the end, into a \
            numbered --output ('%03d' is the number, from 1). --sheet CxR writes one contact sheet of \
            C columns and R rows: the frames at --every S from 0 (C×R of them), or C×R frames spread \
            evenly over the movie. --size WxH scales each picture to exactly that size (with --sheet: the \
            size of a cell, the picture fitted in it with its shape kept). The format is the output's \
            extension: .png, or .jpg/.jpeg (--quality). Prints one line per file written: the time \
            asked, the frame's own time, the size and the path, separated by tabs.

            Examples:
              thumbnails movie.mp4 --at 12.5 --output frame.png
              thumbnails movie.mp4 --every 10 --size 320x180 --output 'thumbs/%03d.jpg'
              thumbnails movie.mp4 --sheet 4x3 --output sheet.png
            """,
        version: "0.1.0")

    @Argument(
        help: ArgumentHelp("The movie to read (anything ContainerDemuxer opens, H.264 video).", valueName: "FILE"))
    var file: String

    @Option(help: ArgumentHelp("The time of the one picture to write.", valueName: "T"))
    var at: TimeArgument?

    @Option(help: ArgumentHelp("Write a picture every S seconds, from 0 to the end.", valueName: "S"))
    var every: TimeArgument?

    @Option(help: ArgumentHelp("Write one contact sheet of COLS columns and ROWS rows.", valueName: "COLSxROWS"))
    var sheet: VideoSize?

    @Option(help: ArgumentHelp("The picture's size (with --sheet, a cell's).", valueName: "WxH"))
    var size: VideoSize?

    @Flag(help: "Take the last keyframe at or before each time instead of the exact frame.")
    var keyframe = false

    @Option(help: ArgumentHelp("JPEG quality, 0 to 1.", valueName: "Q"))
    var quality = 0.9

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "The file to write (.png, .jpg, .jpeg); with --every, a pattern with %d or %03d.", valueName: "PATH"))
    var output: String

    @OptionGroup var logging: VerboseOption

    @Flag(name: .shortAndLong, help: "Print no warnings (errors only).")
    var quiet = false

    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func validate() throws {
        if at != nil && (every != nil || sheet != nil) {
            throw ValidationError("--at writes one frame: give it without --every and --sheet")
        }
        if at == nil && every == nil && sheet == nil {
            throw ValidationError("say which pictures: --at T, --every S or --sheet COLSxROWS")
        }
        if let every, every.time <= .zero {
            throw ValidationError("--every must be more than 0 seconds")
        }
        if every != nil && sheet == nil && !output.contains("%") {
            throw ValidationError("--every writes several files: put %d or %03d in --output (e.g. 'thumbs/%03d.png')")
        }
        guard ImageFileFormat(pathExtension: output) != nil else {
            throw ValidationError("--output must end in .png, .jpg or .jpeg, not '\(output)'")
        }
        guard (0...1).contains(quality) else { throw ValidationError("--quality must be within 0...1, not \(quality)") }
    }

    func run() throws {
        let generator = try ImageGenerator(path: file)
        generator.tolerance = keyframe ? .keyframe : .exact
        var format = ImageFileFormat(pathExtension: output) ?? .png
        if case .jpeg = format { format = .jpeg(quality: quality) }
        if let sheet {
            var times: [MediaTime]?
            if let every {
                let count = Int64(sheet.width * sheet.height)
                times = (0..<count).map { every.time * $0 }.filter {
                    !generator.duration.isNumeric || $0 < generator.duration
                }
            }
            let picture = try generator.contactSheet(
                columns: sheet.width, rows: sheet.height, cellWidth: size?.width, cellHeight: size?.height, at: times)
            try write(picture, asked: times?.first ?? .zero, to: ImageWriter(path: output, format: format))
            return
        }
        if let size { generator.scaling = .exactly(width: size.width, height: size.height) }
        let writer = try ImageWriter(path: output, format: format)
        if let at {
            try write(try generator.image(at: at.time), asked: at.time, to: writer)
        } else if let every {
            try generator.images(every: every.time) { time, picture in
                try Interrupt.check()
                try write(picture, asked: time, to: writer)
            }
        }
        try writer.finish()
    }

    /// Writes `picture` and prints its line.
    private func write(_ picture: MediaSample, asked: MediaTime, to writer: ImageWriter) throws {
        try writer.write(picture)
        guard case .video(let format) = picture.format else { return }
        print(
            "\(asked)\t\(picture.timing.presentationTime)\t\(format.width)x\(format.height)\t\(writer.lastPath ?? output)"
        )
    }
}
