/// A 5×7 bitmap font of the ten decimal digits (the classic HD44780 character-LCD glyphs), for drawing
/// frame numbers into test pictures.
enum DigitFont {
    /// Glyph width in cells.
    static let columns = 5
    /// Glyph height in cells.
    static let rows = 7

    /// For each digit, seven rows of five bits, the most significant of the five bits leftmost.
    private static let glyphs: [[UInt8]] = [
        [0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110],  // 0
        [0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],  // 1
        [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111],  // 2
        [0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110],  // 3
        [0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010],  // 4
        [0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110],  // 5
        [0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110],  // 6
        [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000],  // 7
        [0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110],  // 8
        [0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100]  // 9
    ]

    /// Whether cell (`column`, `row`) of `digit` (0...9) is lit.
    @inline(__always)
    static func isLit(digit: Int, column: Int, row: Int) -> Bool {
        glyphs[digit][row] & (0b10000 >> UInt8(column)) != 0
    }
}
