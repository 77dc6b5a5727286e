// MediaAudio's stages take and give MediaCore's vocabulary (`MediaSample`, `PCMFormat`, `MediaStage`):
// importing MediaAudio is enough to use them.
@_exported public import MediaCore
