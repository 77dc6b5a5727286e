import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `FFmpegLicenceReport` against what the `ffmpeg` CLI of the same FFmpeg build says about itself
/// (`-buildconf`, `-L`, `-version`, `-encoders`, `-decoders`), and the rules that turn configure flags
/// into a licence.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct LicenceReportTests {
    /// The configure options `ffmpeg -hide_banner -buildconf` lists, one per line.
    static func cliConfiguration() throws -> [String] {
        let result = try ExternalTool.check("ffmpeg", ["-hide_banner", "-buildconf"])
        let text = result.output + result.stderr
        return text.split(whereSeparator: \.isWhitespace).map(String.init).filter { $0.hasPrefix("--") }
    }

    @Test func flagsAgreeWithTheCLIsBuildConfiguration() throws {
        let options = Set(try Self.cliConfiguration())
        #expect(options.count > 5)
        let report = FFmpegLicenceReport()
        #expect(report.flags.gpl == options.contains("--enable-gpl"))
        #expect(report.flags.version3 == options.contains("--enable-version3"))
        #expect(report.flags.nonfree == options.contains("--enable-nonfree"))
        let avcodec = try #require(report.libraries.first { $0.name == "avcodec" })
        #expect(Set(avcodec.configuration.split(separator: " ").map(String.init)) == options)
    }

    /// Debian's FFmpeg is built with --enable-gpl: the report says GPL, as `avcodec_license()` and
    /// `ffmpeg -L` do.
    @Test func thisBuildIsGPLAsFFmpegSays() throws {
        let report = FFmpegLicenceReport()
        let licenceText = try ExternalTool.check("ffmpeg", ["-hide_banner", "-L"]).output
        let cliSaysGPL = licenceText.contains("GNU General Public License")
        #expect(cliSaysGPL)
        #expect(report.flags.gpl == cliSaysGPL)
        #expect(report.ffmpegLicence == .gpl2OrLater)
        #expect(report.ffmpegLicence.isGPL)
        #expect(report.binaryLicence.hasPrefix("GPL-3.0-or-later"))
        #expect(report.description.contains("Effective licence of this binary: GPL-3.0-or-later"))
        for library in report.libraries {
            #expect(library.licence == "GPL version 2 or later", "\(library.name)")
        }
    }

    @Test func versionsAreTheCLIs() throws {
        // `libavcodec     59. 37.100 / 59. 37.100`: the run-time version is the second.
        let lines = try ExternalTool.check("ffmpeg", ["-hide_banner", "-version"]).output.split(separator: "\n")
        let report = FFmpegLicenceReport()
        #expect(report.libraries.map(\.name) == ["avutil", "avcodec", "avformat", "avfilter", "swresample", "swscale"])
        for library in report.libraries {
            let line = try #require(lines.first { $0.hasPrefix("lib\(library.name) ") })
            let runTime = try #require(line.split(separator: "/").last).replacingOccurrences(of: " ", with: "")
            #expect(runTime == library.version, "\(line)")
        }
    }

    @Test func libx264IsListedAsGPLAndEveryCodecIsTheCLIs() throws {
        let report = FFmpegLicenceReport()
        let x264 = try #require(report.codecs.first { $0.role == .encoder && $0.name == "libx264" })
        #expect(x264.licence.hasPrefix("GPL-2.0-or-later"))
        #expect(x264.externalLibrary == "libx264")
        let aac = try #require(report.codecs.first { $0.role == .encoder && $0.name == "aac" })
        #expect(aac.licence.hasPrefix("LGPL-2.1-or-later"))
        #expect(aac.externalLibrary == nil)
        // `ffmpeg -encoders` rows: ` V....D libx264  libx264 H.264 / …`: the second word is the name.
        func names(_ flag: String) throws -> Set<String> {
            let rows = try ExternalTool.check("ffmpeg", ["-hide_banner", flag]).output.split(separator: "\n")
            return Set(rows.compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) })
        }
        let encoders = try names("-encoders")
        let decoders = try names("-decoders")
        #expect(report.codecs.count == 12)
        for codec in report.codecs {
            let name = try #require(codec.name, "\(codec.purpose) missing")
            #expect((codec.role == .encoder ? encoders : decoders).contains(name), "\(name)")
        }
    }

    @Test(arguments: [
        ("--prefix=/usr", FFmpegLicenceReport.EffectiveLicence.lgpl21OrLater),
        ("--enable-version3", .lgpl3OrLater),
        ("--enable-gpl --enable-libx264", .gpl2OrLater),
        ("--enable-gpl --enable-version3", .gpl3OrLater),
        ("--enable-gpl --enable-nonfree --enable-libfdk-aac", .nonfree),
        ("--enable-gpl-x --disable-gpl", .lgpl21OrLater)
    ])
    func flagsGiveTheLicence(configuration: String, licence: FFmpegLicenceReport.EffectiveLicence) {
        #expect(FFmpegLicenceReport.EffectiveLicence(.init(configuration: configuration)) == licence)
    }

    @Test func jsonHoldsTheSameFacts() throws {
        let report = FFmpegLicenceReport()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
        #expect(object["projectLicence"] as? String == "Apache-2.0")
        #expect(object["ffmpegLicence"] as? String == report.ffmpegLicence.rawValue)
        #expect(object["binaryLicence"] as? String == report.binaryLicence)
        #expect((object["flags"] as? [String: Bool])?["gpl"] == report.flags.gpl)
        #expect((object["libraries"] as? [[String: Any]])?.count == 6)
        let codecs = try #require(object["codecs"] as? [[String: Any]])
        #expect(
            codecs.contains {
                $0["name"] as? String == "libx264" && ($0["licence"] as? String)?.hasPrefix("GPL") == true
            })
        #expect((object["distributionNotes"] as? String) == report.distributionNotes)
    }
}
