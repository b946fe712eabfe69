/// A value decoded if it can be, nil if not, so that one odd element does not spoil a list.
struct Lossy<Value: Decodable & Sendable>: Decodable, Sendable {
    /// The value, nil when it could not be decoded.
    var value: Value?

    init(from decoder: any Decoder) throws {
        value = try? Value(from: decoder)
    }
}
