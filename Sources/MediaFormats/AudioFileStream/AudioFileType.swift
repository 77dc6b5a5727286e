/// The container of an audio file, as `AudioFileStream` names it (`kAudioFileWAVEType` …): the
/// `fileType` that ``AudioFileStreamParser`` reports first and `media-info` prints.
public enum AudioFileType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// RIFF WAVE, also RF64 and BW64 (files over 4 GiB).
    case wave = "WAVE"
    /// AIFF (uncompressed, big-endian).
    case aiff = "AIFF"
    /// AIFF-C (compressed or little-endian).
    case aifc = "AIFC"
    /// Core Audio Format.
    case caf = "CAF"
    /// NeXT/Sun `.au` / `.snd`.
    case next = "NeXT"
    /// AAC in ADTS frames.
    case adts = "ADTS"
    /// MPEG audio frames (Layer III, and Layer II).
    case mp3 = "MP3"

    /// The name as `media-info` prints it: `WAVE`, `AIFF`, `AIFC`, `CAF`, `NeXT`, `ADTS`, `MP3`.
    public var description: String { rawValue }
}
