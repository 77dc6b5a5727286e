// media-relay: RTMP publishers and pulled URLs → segmented recordings, live HLS and restreams (see
// README.md), nginx-rtmp's record and hls, or MediaMTX, as a Swift program.
import ExampleSupport

MediaRelay.runInHouseStyle("media-relay")
