import Foundation

/// A terminal level bar for `--meter`: `#` up to the average, `=` up to the held peak, over −60…0 dBFS.
enum LevelBar {
    static func draw(peak: Double, average: Double, width: Int) -> String {
        func cells(_ db: Double) -> Int { max(0, min(width, Int(((db + 60) / 60 * Double(width)).rounded()))) }
        let a = cells(average), p = max(a, cells(peak))
        return "[" + String(repeating: "#", count: a) + String(repeating: "=", count: p - a)
            + String(repeating: " ", count: width - p) + "] " + String(format: "%6.1f dB", peak)
    }
}
