/// The heap object that holds an array's elements, for tests that prove a buffer was reused by its
/// identity: a `weak` reference to it is `nil` once the buffer is freed, so a new buffer that malloc
/// happens to place at the old address is not mistaken for the old one (as comparing addresses would).
///
/// On Linux an `Array` is one reference to its storage object (`__ContiguousArrayStorageBase`), whose
/// elements follow its header; ``object(of:)`` checks that before returning it.
public enum ArrayBuffer {
    /// The storage object of `array`, which must not be empty (empty arrays share one static object).
    public static func object(of array: [UInt8]) -> AnyObject? {
        guard !array.isEmpty else { return nil }
        let object = unsafeBitCast(array, to: AnyObject.self)
        let start = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        let elements = array.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        // The elements sit right after the object's header (metadata, reference counts, count, capacity).
        guard elements > start, elements - start <= 64 else { return nil }
        return object
    }
}
