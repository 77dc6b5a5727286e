import ArgumentParser
import ExampleSupport
import Foundation
import MediaPipeline

/// `video-devices [--json]`: the cameras and their formats.
struct VideoDevices: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "video-devices",
        abstract: "List the V4L2 cameras and the formats, sizes and frame rates each captures.",
        discussion: """
            Lists every /dev/video* node that captures video, in path order: its name, driver and bus, and \
            each format (FFmpeg's name, as camera-recorder --camera-format takes it, and the driver's \
            description) with its sizes and frame rates. With no camera, it says so (--json: an empty \
            array) and exits 0. --json prints one JSON array; its keys are listed in README.md.

            --encoders lists the video encoders instead: each hardware encoder (NVENC, Quick Sync, VA-API, \
            V4L2) and software encoder for H.264, HEVC, AV1 and VP9, whether this FFmpeg build has it and \
            whether it encodes a frame here (VideoEncoderProbe), with the reason when it does not.

            Examples:
              video-devices
              video-devices --json | jq '.[0].formats[].pixelFormat'
              video-devices --encoders --json | jq '.[] | select(.works) | .encoderName'
            """,
        version: "0.1.0")

    @Flag(help: "Print one JSON array on standard output instead of text.")
    var json = false

    @Flag(help: "List the video encoders, hardware and software, and whether each works here, instead of cameras.")
    var encoders = false

    @OptionGroup var logging: VerboseOption

    @Flag(name: .shortAndLong, help: "Print no warnings (errors only).")
    var quiet = false

    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func run() throws {
        if encoders {
            let results = VideoEncoderProbe.probeAll()
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(results.map(EncoderJSON.init)), as: UTF8.self))
            } else {
                for result in results { print(result) }
            }
            return
        }
        let cameras = try VideoDevice.cameras()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(cameras.map(CameraJSON.init)), as: UTF8.self))
            return
        }
        if cameras.isEmpty { print("No V4L2 cameras (no /dev/video* node captures video).") }
        for camera in cameras {
            print("\(camera.path): \(camera.name) (\(camera.driver), \(camera.busInfo))")
            for format in camera.formats {
                print("  \(format.pixelFormat) (\(format.description))")
                for size in format.sizes {
                    let rates = size.frameRates.map { Self.rateText($0) }.joined(separator: ", ")
                    print("    \(size.width)x\(size.height)" + (rates.isEmpty ? "" : " at \(rates) fps"))
                }
            }
        }
    }

    /// `30`, or `29.97` for 30000/1001.
    static func rateText(_ rate: FrameRate) -> String {
        rate.denominator == 1
            ? "\(rate.numerator)" : formatDecimal(Double(rate.numerator) / Double(rate.denominator), 2)
    }
}

/// One encoder in `--encoders --json`.
struct EncoderJSON: Encodable {
    var encoderName: String
    var codec: String
    var hardware: Bool
    var inBuild: Bool
    var works: Bool
    var reason: String?

    init(_ result: VideoEncoderProbe.Result) {
        encoderName = result.encoderName
        codec = result.family.rawValue
        hardware = result.isHardware
        inBuild = result.isInBuild
        works = result.works
        reason = result.reason
    }
}

/// One camera in `--json`.
struct CameraJSON: Encodable {
    struct Format: Encodable {
        var fourCC: String
        var pixelFormat: String
        var description: String
        var compressed: Bool
        var sizes: [Size]
    }

    struct Size: Encodable {
        var width: Int
        var height: Int
        var frameRates: [String]
    }

    var path: String
    var name: String
    var driver: String
    var busInfo: String
    var formats: [Format]

    init(_ camera: VideoDevice) {
        (path, name, driver, busInfo) = (camera.path, camera.name, camera.driver, camera.busInfo)
        formats = camera.formats.map {
            Format(
                fourCC: $0.fourCC, pixelFormat: $0.pixelFormat, description: $0.description,
                compressed: $0.isCompressed,
                sizes: $0.sizes.map {
                    Size(width: $0.width, height: $0.height, frameRates: $0.frameRates.map(\.description))
                })
        }
    }
}
