internal import CMediaFFmpeg

/// Which FFmpeg libraries and codecs a MediaPipeline binary uses, under which licence this FFmpeg
/// build has them, and what that means for distributing the binary: the answer to "can I ship this?"
/// that `ffmpeg -L` and `-buildconf` give for the CLI.
///
/// ```swift
/// let report = FFmpegLicenceReport()
/// print(report)                    // the text every example prints for --licence
/// report.effectiveLicence          // .gpl2OrLater with Debian's FFmpeg (--enable-gpl)
/// ```
///
/// - Everything about the build is read at run time from the linked libraries: their versions
///   (`avcodec_version()` …), licence strings (`avcodec_license()` …) and configure lines
///   (`avcodec_configuration()`), and which codecs exist (`avcodec_find_encoder_by_name`,
///   `avcodec_find_decoder`). Only the licences of the external codec libraries (x264 is GPL v2+)
///   are a table, cited from FFmpeg 5.1's LICENSE.md and configure.
/// - It refuses nothing and throws nothing: a codec this build lacks is listed with `name == nil`.
/// - Not legal advice: it states the licences; ``distributionNotes`` says what they usually imply.
public struct FFmpegLicenceReport: Sendable, Hashable, CustomStringConvertible {
    /// One linked FFmpeg library.
    public struct Library: Sendable, Hashable {
        /// `avcodec`, `avformat`, `avutil`, `swresample` or `swscale`.
        public var name: String
        /// The run-time version, `major.minor.micro` (`avcodec_version()`).
        public var version: String
        /// The library's own licence string (`avcodec_license()`), e.g. `GPL version 2 or later`.
        public var licence: String
        /// The configure line FFmpeg was built with (`avcodec_configuration()`).
        public var configuration: String
    }

    /// One codec MediaPipeline opens.
    public struct Codec: Sendable, Hashable {
        /// Whether MediaPipeline encodes or decodes with it.
        public enum Role: String, Sendable, Hashable {
            /// An encoder (`avcodec_find_encoder_by_name`).
            case encoder
            /// A decoder (`avcodec_find_decoder`).
            case decoder
        }
        /// Encoder or decoder.
        public var role: Role
        /// What MediaPipeline uses it for, e.g. `H.264 encoding (H264Encoder's default)`.
        public var purpose: String
        /// The codec this build provides (`AVCodec.name`, e.g. `libx264`, `aac`, `h264`); `nil` when
        /// this FFmpeg build has none.
        public var name: String?
        /// The external library it wraps (`AVCodec.wrapper_name`, e.g. `libx264`); `nil` for FFmpeg's own code.
        public var externalLibrary: String?
        /// Its licence, e.g. `GPL-2.0-or-later (x264; needs FFmpeg --enable-gpl)`; empty when absent.
        public var licence: String
    }

    /// The licence-relevant configure flags, as FFmpeg's configuration string states them.
    public struct BuildFlags: Sendable, Hashable {
        /// `--enable-gpl`: GPL parts and GPL libraries (x264) are in; FFmpeg becomes GPL v2+.
        public var gpl: Bool
        /// `--enable-version3`: (L)GPL version 3 instead of 2.
        public var version3: Bool
        /// `--enable-nonfree`: GPL-incompatible libraries are in; the build is not redistributable.
        public var nonfree: Bool

        /// The flags found among the options of a configure line (each a whole word).
        public init(configuration: String) {
            let words = Set(configuration.split(separator: " ").map(String.init))
            gpl = words.contains("--enable-gpl")
            version3 = words.contains("--enable-version3")
            nonfree = words.contains("--enable-nonfree")
        }
    }

    /// The licence a binary of MediaPipeline and this FFmpeg build is distributed under.
    public enum EffectiveLicence: String, Sendable, Hashable {
        /// LGPL FFmpeg: the binary keeps the app's licence; FFmpeg's libraries stay LGPL v2.1+.
        case lgpl21OrLater = "LGPL-2.1-or-later"
        /// LGPL FFmpeg with `--enable-version3`.
        case lgpl3OrLater = "LGPL-3.0-or-later"
        /// GPL FFmpeg (`--enable-gpl`): the whole binary is GPL; with MediaPipeline's Apache-2.0 code
        /// that means GPL version 3 (Apache-2.0 is compatible with GPL v3, not v2).
        case gpl2OrLater = "GPL-2.0-or-later"
        /// GPL FFmpeg with `--enable-version3`.
        case gpl3OrLater = "GPL-3.0-or-later"
        /// `--enable-nonfree`: not redistributable at all.
        case nonfree = "nonfree: not redistributable"

        /// The licence of FFmpeg built with `flags` (FFmpeg 5.1 configure's `license` logic).
        public init(_ flags: BuildFlags) {
            if flags.nonfree {
                self = .nonfree
            } else if flags.gpl {
                self = flags.version3 ? .gpl3OrLater : .gpl2OrLater
            } else {
                self = flags.version3 ? .lgpl3OrLater : .lgpl21OrLater
            }
        }

        /// Whether a binary linking this build must be distributed under the GPL.
        public var isGPL: Bool { self == .gpl2OrLater || self == .gpl3OrLater }
    }

    /// MediaPipeline's own licence (the repository's LICENSE file).
    public static let projectLicence = "Apache-2.0"

    /// The six linked libraries, avutil first.
    public let libraries: [Library]
    /// The codecs MediaPipeline's stages open, as this build has them.
    public let codecs: [Codec]
    /// The licence flags of libavcodec's configure line (all six libraries share one configure run).
    public let flags: BuildFlags
    /// FFmpeg's licence as built here, from ``flags``.
    public let ffmpegLicence: EffectiveLicence

    /// The report for the FFmpeg libraries this process has linked.
    public init() {
        libraries = [
            Self.library("avutil", avutil_version(), avutil_license(), avutil_configuration()),
            Self.library("avcodec", avcodec_version(), avcodec_license(), avcodec_configuration()),
            Self.library("avformat", avformat_version(), avformat_license(), avformat_configuration()),
            Self.library("avfilter", avfilter_version(), avfilter_license(), avfilter_configuration()),
            Self.library("swresample", swresample_version(), swresample_license(), swresample_configuration()),
            Self.library("swscale", swscale_version(), swscale_license(), swscale_configuration())
        ]
        codecs = LicenceFacts.usedCodecs.map { Self.codec($0.lookup, purpose: $0.purpose) }
        flags = BuildFlags(configuration: libraries[1].configuration)
        ffmpegLicence = EffectiveLicence(flags)
    }

    /// The licence of a binary that links MediaPipeline (Apache-2.0) against this FFmpeg build.
    public var binaryLicence: String {
        switch ffmpegLicence {
        case .lgpl21OrLater, .lgpl3OrLater:
            "Apache-2.0, with FFmpeg's \(ffmpegLicence.rawValue) libraries linked dynamically"
        case .gpl2OrLater, .gpl3OrLater:
            "GPL-3.0-or-later (FFmpeg is \(ffmpegLicence.rawValue) here; Apache-2.0 code is compatible with GPL version 3 only)"
        case .nonfree: ffmpegLicence.rawValue
        }
    }

    private static func library(
        _ name: String, _ version: UInt32, _ licence: UnsafePointer<CChar>?, _ configuration: UnsafePointer<CChar>?
    ) -> Library {
        Library(
            name: name, version: "\(version >> 16).\((version >> 8) & 0xFF).\(version & 0xFF)",
            licence: licence.map { String(cString: $0) } ?? "",
            configuration: configuration.map { String(cString: $0) }?.trimmingSpaces ?? "")
    }

    private static func codec(_ lookup: LicenceFacts.Lookup, purpose: String) -> Codec {
        let found: UnsafePointer<AVCodec>?
        let role: Codec.Role
        switch lookup {
        case .encoder(let name): (found, role) = (avcodec_find_encoder_by_name(name), .encoder)
        case .decoder(let id): (found, role) = (avcodec_find_decoder(id), .decoder)
        }
        guard let codec = found?.pointee, let namePointer = codec.name else {
            return Codec(role: role, purpose: purpose, name: nil, externalLibrary: nil, licence: "")
        }
        let name = String(cString: namePointer)
        let wrapper = codec.wrapper_name.map { String(cString: $0) }
        return Codec(
            role: role, purpose: purpose, name: name, externalLibrary: wrapper,
            licence: LicenceFacts.licence(codec: name, wrapper: wrapper))
    }
}

extension String {
    /// Without leading and trailing spaces (no Foundation).
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
