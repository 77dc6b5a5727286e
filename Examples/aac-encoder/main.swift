// aac-encoder: PCM (a WAV file or a generated tone) → AAC-LC → ADTS file.
// The pipeline is the one Examples/aac-encoder/README.md shows in code (see AACEncoderCommand.swift).
import ExampleSupport

AACEncoderCommand.runInHouseStyle("aac-encoder")
