// caf-recorder: PCM (a generated tone, a WAV or PCM CAF file) → AAC-LC or linear PCM → CAF, the way
// Apple's AudioFile records. AAC input (ADTS or CAF) is remuxed into CAF, or decoded for --format lpcm.
import ExampleSupport

CAFRecorderCommand.runInHouseStyle("caf-recorder")
