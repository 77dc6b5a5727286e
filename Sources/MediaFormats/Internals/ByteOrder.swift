/// Reverses the bytes of each `width`-byte value in `bytes`, in place: big-endian PCM to little-endian
/// and back. A trailing partial value is left as it is.
func reverseByteOrder(of bytes: inout [UInt8], width: Int) {
    guard width > 1 else { return }
    bytes.withUnsafeMutableBufferPointer { buffer in
        var start = 0
        while start + width <= buffer.count {
            var low = start
            var high = start + width - 1
            while low < high {
                buffer.swapAt(low, high)
                low += 1
                high -= 1
            }
            start += width
        }
    }
}
