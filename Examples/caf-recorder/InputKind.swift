import ArgumentParser

/// The kind of file `path` names, from its extension.
enum InputKind {
    case wav, caf, adts

    init(path: String) throws(ValidationError) {
        let lower = path.lowercased()
        if lower.hasSuffix(".wav") || lower.hasSuffix(".wave") {
            self = .wav
        } else if lower.hasSuffix(".caf") {
            self = .caf
        } else if lower.hasSuffix(".aac") || lower.hasSuffix(".adts") {
            self = .adts
        } else {
            throw ValidationError("cannot tell the format of '\(path)' from its name (use .wav, .caf or .aac)")
        }
    }
}
