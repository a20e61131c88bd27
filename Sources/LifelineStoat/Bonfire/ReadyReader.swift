/// What the fast `Ready` decoder reads a frame with: one value at a time where the decoder expects one.
///
/// ``JSONScanner`` reads JSON frames and ``MessagePackReader`` MessagePack frames; the decoder's field dispatch
/// (`readReadyFrame()`, `readUser()` …) is written once over this protocol, so both formats take the same
/// fields by the same rules. Every read that meets something else throws a ``JSONScanError``, and the caller
/// then decodes the frame by the slower path whose verdict is the reference.
protocol ReadyReader {
    /// A member's key, as ``readKey()`` read it.
    associatedtype Key

    /// The offset of the next byte to read, for errors.
    var offset: Int { get }

    /// Enters an object (a map): `true` if a member follows, `false` if it was empty (and has been left).
    mutating func enterObject() throws(JSONScanError) -> Bool
    /// After a member's value: `true` if another member follows, `false` at the end of the object.
    mutating func nextMember() throws(JSONScanError) -> Bool
    /// Enters an array: `true` if an element follows, `false` if it was empty (and has been left).
    mutating func enterArray() throws(JSONScanError) -> Bool
    /// After an element: `true` if another element follows, `false` at the end of the array.
    mutating func nextElement() throws(JSONScanError) -> Bool
    /// How many elements of `size` bytes to reserve room for in the array just entered: the count the format
    /// states up front (0 when it states none), trusted only as far as room for them takes at most four times
    /// the bytes left in the frame, so a hostile count cannot make the reader reserve more than the frame
    /// limit allows for.
    func elementCountHint(elementSize: Int) -> Int
    /// Reads a member's key.
    mutating func readKey() throws(JSONScanError) -> Key
    /// Whether `key` is exactly `name`.
    func key(_ key: Key, is name: StaticString) -> Bool
    /// The key as a string.
    func string(of key: Key) throws(JSONScanError) -> String
    /// Consumes a null if it is next.
    mutating func readNull() -> Bool
    /// Whether a number is next.
    mutating func nextIsNumber() -> Bool
    /// Consumes an empty object if it is next.
    mutating func readEmptyObject() -> Bool
    /// Reads a string.
    mutating func readString() throws(JSONScanError) -> String
    /// Reads a boolean.
    mutating func readBool() throws(JSONScanError) -> Bool
    /// Reads an integer that fits `Int64`; any other number is refused.
    mutating func readInt64() throws(JSONScanError) -> Int64
    /// Reads an integer that fits `Int`; any other number is refused.
    mutating func readInt() throws(JSONScanError) -> Int
    /// Skips one value of any shape, checking that it is well-formed.
    mutating func skipValue() throws(JSONScanError)
}

extension JSONScanner: ReadyReader {
    /// JSON does not say how long an array is.
    func elementCountHint(elementSize: Int) -> Int { 0 }
}
