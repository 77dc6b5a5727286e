import MediaCore

extension MediaOutput {
    /// A muxer's `finish()`: runs its last writes (the sizes patched into its header), then closes the
    /// output. The output is closed even when those writes throw, and their error is the one thrown: a
    /// close after a failed write would only report the same failure again.
    func close(afterWriting lastWrites: () throws(MediaError) -> Void) throws(MediaError) {
        do {
            try lastWrites()
        } catch {
            try? close()
            throw error
        }
        try close()
    }
}
