import MediaAudio
import Testing

/// The module links and re-exports MediaCore's vocabulary.
@Test(.timeLimit(.minutes(5))) func mediaAudioReexportsMediaCore() {
    let time = MediaTime(value: 48_000, timescale: 48_000)
    #expect(time.seconds == 1.0)
    #expect(time.isNumeric)
}
