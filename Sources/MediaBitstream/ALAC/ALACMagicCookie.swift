package import MediaCore

/// The ALAC magic cookie in the forms files hold it, turned into the 36-byte extradata FFmpeg's `alac`
/// decoder reads (a 12-byte `alac` atom header, then the 24-byte `ALACSpecificConfig`).
///
/// - Accepts: the bare 24-byte `ALACSpecificConfig` (a CAF `kuki` from Apple's encoder), optionally
///   followed by more (a `chan` atom); an `alac` atom (size, `'alac'`, version and flags, then the
///   config: how MP4 and FFmpeg hold it); a `frma` atom followed by the `alac` atom (the older CAF
///   and QuickTime `wave` form), atoms after it ignored.
/// - Refuses, with the byte offset within the cookie: a cookie shorter than the config with
///   ``/MediaCore/MediaError/Code/truncated``; an atom whose size runs past the cookie or is below its
///   header, or a `frma` atom not followed by an `alac` atom, with ``/MediaCore/MediaError/Code/invalidData``.
package enum ALACMagicCookie {
    /// Bytes in an `ALACSpecificConfig` (Apple's ALAC reference, `ALACAudioTypes.h`).
    package static let configSize = 24
    /// Bytes of an atom's size and type.
    private static let atomHeader = 8

    /// The 36-byte extradata for `cookie`.
    package static func extradata(from cookie: [UInt8]) throws(MediaError) -> [UInt8] {
        let config = try self.config(in: cookie)
        return [0, 0, 0, 36] + Array("alac".utf8) + [0, 0, 0, 0] + config
    }

    /// The 24-byte `ALACSpecificConfig` inside `cookie`.
    package static func config(in cookie: [UInt8]) throws(MediaError) -> [UInt8] {
        var offset = 0
        if type(at: offset, in: cookie) == "frma" {
            offset += try atomSize(at: offset, in: cookie, minimum: 12)
            guard type(at: offset, in: cookie) == "alac" else {
                throw MediaError.invalidData(
                    "ALAC magic cookie has a 'frma' atom without an 'alac' atom after it", at: Int64(offset))
            }
        }
        if type(at: offset, in: cookie) == "alac" {
            _ = try atomSize(at: offset, in: cookie, minimum: 12 + configSize)
            offset += 12  // size, type, version and flags
        }
        guard cookie.count - offset >= configSize else {
            throw MediaError.truncated(
                "ALAC magic cookie's ALACSpecificConfig", needed: configSize, available: cookie.count - offset,
                at: Int64(offset))
        }
        return Array(cookie[offset..<(offset + configSize)])
    }

    /// The four characters at `offset + 4` when an atom header fits there.
    private static func type(at offset: Int, in cookie: [UInt8]) -> String? {
        guard offset >= 0, cookie.count - offset >= atomHeader else { return nil }
        return String(decoding: cookie[(offset + 4)..<(offset + 8)], as: UTF8.self)
    }

    /// The size of the atom at `offset`, checked to be at least `minimum` and within the cookie.
    private static func atomSize(at offset: Int, in cookie: [UInt8], minimum: Int) throws(MediaError) -> Int {
        let size = cookie[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
        guard size >= minimum, size <= cookie.count - offset else {
            throw MediaError.invalidData(
                "ALAC magic cookie's '\(type(at: offset, in: cookie) ?? "?")' atom declares \(count: size, "byte"); \(cookie.count - offset) remain and it needs at least \(minimum)",
                at: Int64(offset))
        }
        return size
    }
}
