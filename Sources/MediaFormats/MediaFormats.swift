// MediaFormats re-exports MediaBitstream: the bitstream types moved there from this module
// (`AVCDecoderConfigurationRecord`, `AudioSpecificConfig`, `H264Bitstream`, `AnnexBScanner`, `H264SPS`,
// `FourCC`...) are named in this module's public API (ADTSHeader, AnnexBReader, ...) and code that
// imports only MediaFormats keeps compiling. A typealias per type would not do: with the
// `MemberImportVisibility` feature, members declared in a module the user does not import are hidden.
@_exported public import MediaBitstream
