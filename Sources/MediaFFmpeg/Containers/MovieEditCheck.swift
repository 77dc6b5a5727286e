#if canImport(Glibc)
    import Glibc
#endif
import Logging
import MediaCore

/// An MP4/MOV's edit lists checked against the samples they edit, for ``ContainerDemuxer``'s
/// ``ContainerDemuxer/diagnostics``: the same trust rule as a LAME tag's or a `pakt`'s frame count.
///
/// An edit list (`trak/edts/elst`) says which stretch of a track's media is presented: from
/// `media_time`, for `segment_duration`. A shorter stretch than the media is an edit, as QuickTime
/// writes one (trimmed priming, a cut); it is applied. Two claims cannot be true of the samples, and
/// libavformat 5.1 acts on them without a word, so they are reported, each as a warning naming the
/// track and the byte offset of its `elst`:
/// - `editBeyondMedia`: the edits present more than the samples hold from where the first starts (by
///   more than one sample's duration). What the samples hold is read, as libavformat reads it.
/// - `editPastMediaEnd`: an edit starts at or after the end of the samples, so nothing of the track is
///   presented (libavformat drops its packets).
///
/// What the samples hold is the sum of the `stts` durations, moved on by the largest composition offset
/// of a `ctts` (with B-frames the pictures are presented up to that much after they are decoded: an
/// H.264 track whose edit starts at its first offset presents its whole duration). Every value comes from the file, so the
/// sums are taken as `Double` seconds (no overflow), and a box that does not fit ends the check with no
/// diagnostic: libavformat reports damaged boxes itself.
enum MovieEditCheck {
    /// The largest `moov` read for the check (a `moov` of a three-hour movie is a few MiB).
    static let movieLimit: Int64 = 64 << 20

    /// One diagnostic, and the index of the stream (the `trak`'s place in the `moov`) it is about.
    typealias Finding = (stream: Int, diagnostic: MediaDiagnostic)

    /// The findings for the file at `path`, as reported by `stage`.
    static func diagnostics(path: String, stage: String) -> [Finding] {
        guard let file = fopen(path, "rb") else { return [] }
        defer { fclose(file) }
        var header = [UInt8](repeating: 0, count: 16)
        var offset: Int64 = 0
        for _ in 0..<64 {
            header = [UInt8](repeating: 0, count: 16)
            guard fseeko(file, off_t(offset), SEEK_SET) == 0, fread(&header, 1, 16, file) >= 8 else { return [] }
            let (type, size, headerSize) = boxHeader(header)
            guard size >= Int64(headerSize), size <= Int64.max - offset else { return [] }
            if type == "moov" {
                guard size <= movieLimit, fseeko(file, off_t(offset), SEEK_SET) == 0 else { return [] }
                var movie = [UInt8](repeating: 0, count: Int(size))
                guard fread(&movie, 1, movie.count, file) == movie.count else { return [] }
                return diagnostics(movie: movie, at: offset, stage: stage)
            }
            offset += size
        }
        return []
    }

    /// The findings for a file held in `bytes`, as reported by `stage`.
    static func diagnostics(bytes: [UInt8], stage: String) -> [Finding] {
        guard let top = try? MovieRewriter.boxes(in: bytes, from: 0, to: bytes.count),
            let movie = top.first(where: { $0.type == "moov" })
        else { return [] }
        return diagnostics(movie: Array(bytes[movie.start..<movie.end]), at: Int64(movie.start), stage: stage)
    }

    /// The findings for the `moov` box `movie`, which starts at `fileOffset` in the file.
    static func diagnostics(movie: [UInt8], at fileOffset: Int64, stage: String) -> [Finding] {
        guard let root = try? MovieRewriter.boxes(in: movie, from: 0, to: movie.count).first,
            let children = try? MovieRewriter.boxes(in: movie, from: root.payloadStart, to: root.end),
            let header = children.first(where: { $0.type == "mvhd" }),
            let movieTimescale = timescale(movie, fullBox: header), movieTimescale > 0
        else { return [] }
        var found: [Finding] = []
        for (ordinal, trak) in children.filter({ $0.type == "trak" }).enumerated() {
            guard let track = Track(movie, trak: trak) else { continue }
            found += track.check(movieTimescale: movieTimescale, stream: ordinal).map { code, message, elst in
                let diagnostic = MediaDiagnostic(
                    .warning, message,
                    metadata: [
                        DiagnosticKey.stage: stage, DiagnosticKey.code: code,
                        DiagnosticKey.byteOffset: String(fileOffset + Int64(elst))
                    ])
                return (ordinal, diagnostic)
            }
        }
        return found
    }

    /// One track's edits and the extent of its samples.
    private struct Track {
        var id: UInt32
        var elstOffset: Int
        /// (segment duration in the movie's timescale, media time in the media's; -1 for an empty edit).
        var edits: [(duration: UInt64, mediaTime: Int64)]
        var mediaTimescale: UInt32
        /// The sum of the `stts` durations, and the longest one, in the media's timescale.
        var mediaDuration: Double
        var longestSample: Double

        init?(_ bytes: [UInt8], trak: MovieRewriter.Box) {
            func child(_ path: [String], in box: MovieRewriter.Box) -> MovieRewriter.Box? {
                var current = box
                for type in path {
                    guard let boxes = try? MovieRewriter.boxes(in: bytes, from: current.payloadStart, to: current.end),
                        let next = boxes.first(where: { $0.type == type })
                    else { return nil }
                    current = next
                }
                return current
            }
            guard let elst = child(["edts", "elst"], in: trak), let tkhd = child(["tkhd"], in: trak),
                let mdhd = child(["mdia", "mdhd"], in: trak),
                let stts = child(["mdia", "minf", "stbl", "stts"], in: trak),
                let scale = MovieEditCheck.timescale(bytes, fullBox: mdhd), scale > 0,
                let tkhdVersion = MovieEditCheck.version(bytes, tkhd),
                let id = MovieEditCheck.uint32(bytes, tkhd.payloadStart + (tkhdVersion == 1 ? 20 : 12), in: tkhd),
                let edits = Self.edits(bytes, elst), let durations = Self.sampleDurations(bytes, stts)
            else { return nil }
            self.id = id
            elstOffset = elst.start
            self.edits = edits
            mediaTimescale = scale
            let ctts = child(["mdia", "minf", "stbl", "ctts"], in: trak)
            mediaDuration = durations.total + (ctts.flatMap { Self.largestOffset(bytes, $0) } ?? 0)
            longestSample = durations.longest
        }

        private static func edits(
            _ bytes: [UInt8], _ elst: MovieRewriter.Box
        ) -> [(duration: UInt64, mediaTime: Int64)]? {
            let start = elst.payloadStart
            guard let version = version(bytes, elst), let count = uint32(bytes, start + 4, in: elst) else { return nil }
            let wide = version == 1
            let entrySize = wide ? 20 : 12
            guard Int(count) <= (elst.end - start - 8) / entrySize else { return nil }
            return (0..<Int(count)).compactMap { index in
                let at = start + 8 + index * entrySize
                if wide {
                    guard let duration = uint64(bytes, at, in: elst), let time = uint64(bytes, at + 8, in: elst) else {
                        return nil
                    }
                    return (duration, Int64(bitPattern: time))
                }
                guard let duration = uint32(bytes, at, in: elst), let time = uint32(bytes, at + 4, in: elst) else {
                    return nil
                }
                return (UInt64(duration), Int64(Int32(bitPattern: time)))
            }
        }

        /// The largest composition offset of a `ctts` (version 1's may be negative; 0 at least), in the
        /// media's timescale; `nil` when the box does not fit.
        private static func largestOffset(_ bytes: [UInt8], _ ctts: MovieRewriter.Box) -> Double? {
            let start = ctts.payloadStart
            guard let version = version(bytes, ctts), let count = uint32(bytes, start + 4, in: ctts),
                Int(count) <= (ctts.end - start - 8) / 8
            else { return nil }
            var largest = 0.0
            for index in 0..<Int(count) {
                guard let offset = uint32(bytes, start + 12 + index * 8, in: ctts) else { return nil }
                largest = max(largest, version == 1 ? Double(Int32(bitPattern: offset)) : Double(offset))
            }
            return largest
        }

        private static func sampleDurations(_ bytes: [UInt8], _ stts: MovieRewriter.Box) -> (
            total: Double, longest: Double
        )? {
            let start = stts.payloadStart
            guard let count = uint32(bytes, start + 4, in: stts), Int(count) <= (stts.end - start - 8) / 8 else {
                return nil
            }
            var total = 0.0
            var longest = 0.0
            for index in 0..<Int(count) {
                guard let samples = uint32(bytes, start + 8 + index * 8, in: stts),
                    let delta = uint32(bytes, start + 12 + index * 8, in: stts)
                else { return nil }
                total += Double(samples) * Double(delta)
                if samples > 0 { longest = max(longest, Double(delta)) }
            }
            return (total, longest)
        }

        /// (code, message, offset of the `elst` in the `moov`) for each claim the samples contradict.
        func check(movieTimescale: UInt32, stream: Int) -> [(String, String, Int)] {
            let media = Double(mediaTimescale)
            let presented = edits.filter { $0.mediaTime >= 0 }
            guard let first = presented.first else { return [] }
            let name = "MP4 track \(id) (stream \(stream))"
            let start = Double(first.mediaTime) / media
            let end = mediaDuration / media
            if Double(first.mediaTime) >= mediaDuration {
                return [
                    (
                        "editPastMediaEnd",
                        "\(name): its edit list starts at media time \(seconds(start)) but its samples end at "
                            + "\(seconds(end)); nothing of the track is presented",
                        elstOffset
                    )
                ]
            }
            let claimed = presented.reduce(0.0) { $0 + Double($1.duration) } / Double(movieTimescale)
            let held = end - start
            guard claimed > held + longestSample / media else { return [] }
            return [
                (
                    "editBeyondMedia",
                    "\(name): its edit list presents \(seconds(claimed)) but its samples hold \(seconds(held)) "
                        + "from media time \(seconds(start)); the \(seconds(held)) there are read",
                    elstOffset
                )
            ]
        }

        /// `2.043 s`, to the millisecond.
        private func seconds(_ value: Double) -> String {
            guard value.isFinite, value < 1e12 else { return "\(value) s" }
            let milliseconds = Int64((value * 1000).rounded())
            let fraction = String(milliseconds % 1000)
            return "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) s"
        }
    }

    /// A full box's timescale (`mvhd`, `mdhd`): after version/flags and the two dates (32 or 64 bits).
    private static func timescale(_ bytes: [UInt8], fullBox box: MovieRewriter.Box) -> UInt32? {
        guard let version = version(bytes, box) else { return nil }
        return uint32(bytes, box.payloadStart + (version == 1 ? 20 : 12), in: box)
    }

    /// A full box's version, the first byte of its payload.
    private static func version(_ bytes: [UInt8], _ box: MovieRewriter.Box) -> UInt8? {
        box.end > box.payloadStart ? bytes[box.payloadStart] : nil
    }

    private static func uint32(_ bytes: [UInt8], _ at: Int, in box: MovieRewriter.Box) -> UInt32? {
        guard at >= box.payloadStart, at <= box.end - 4 else { return nil }
        return MovieRewriter.readUInt32(bytes, at)
    }

    private static func uint64(_ bytes: [UInt8], _ at: Int, in box: MovieRewriter.Box) -> UInt64? {
        guard at >= box.payloadStart, at <= box.end - 8 else { return nil }
        return MovieRewriter.readUInt64(bytes, at)
    }

    /// A box header's type, size (a `largesize` when its 32-bit size is 1; to the end of the file, as
    /// `Int64.max`, when 0) and length.
    private static func boxHeader(_ header: [UInt8]) -> (String, Int64, Int) {
        let type = String(decoding: header[4..<8], as: UTF8.self)
        let size32 = Int64(MovieRewriter.readUInt32(header, 0))
        if size32 == 1 { return (type, Int64(clamping: MovieRewriter.readUInt64(header, 8)), 16) }
        return (type, size32 == 0 ? Int64.max : size32, 8)
    }
}
