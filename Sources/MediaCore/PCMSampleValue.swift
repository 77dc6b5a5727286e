/// A Swift type that PCM sample values of one ``PCMSampleType`` are read and written as: `UInt8` for
/// ``PCMSampleType/u8``, `Int16` for ``PCMSampleType/s16``, `Int32` for ``PCMSampleType/s32``, `Float` for
/// ``PCMSampleType/f32`` and `Double` for ``PCMSampleType/f64``.
///
/// Packed 24-bit (``PCMSampleType/s24``) has no Swift type: read its bytes with
/// ``MediaSample/withUnsafeBytes(plane:_:)``, or convert it first. The library adopts this protocol for the
/// five types above; other types cannot adopt it meaningfully.
public protocol PCMSampleValue: BitwiseCopyable, Sendable {
    /// The sample type whose values are stored as this type.
    static var pcmSampleType: PCMSampleType { get }
}

extension UInt8: PCMSampleValue {
    /// ``PCMSampleType/u8``.
    public static var pcmSampleType: PCMSampleType { .u8 }
}

extension Int16: PCMSampleValue {
    /// ``PCMSampleType/s16``.
    public static var pcmSampleType: PCMSampleType { .s16 }
}

extension Int32: PCMSampleValue {
    /// ``PCMSampleType/s32``.
    public static var pcmSampleType: PCMSampleType { .s32 }
}

extension Float: PCMSampleValue {
    /// ``PCMSampleType/f32``.
    public static var pcmSampleType: PCMSampleType { .f32 }
}

extension Double: PCMSampleValue {
    /// ``PCMSampleType/f64``.
    public static var pcmSampleType: PCMSampleType { .f64 }
}
