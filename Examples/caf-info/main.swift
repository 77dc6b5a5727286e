// caf-info: what a Core Audio Format file holds, like Apple's `afinfo`: its chunks, the `desc`
// fields, the magic cookie, the packet table and the duration. `--json` prints one JSON object.
import ExampleSupport

CAFInfo.runInHouseStyle("caf-info")
