// thumbnails: still pictures of a movie, like `ffmpeg -ss T -i movie -frames:v 1 out.png` and
// AVAssetImageGenerator: one exact frame, one every S seconds, or a contact sheet (see README.md).
import ExampleSupport

Thumbnails.runInHouseStyle("thumbnails")
