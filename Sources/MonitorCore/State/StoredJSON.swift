import Foundation

/// The JSON text both databases store a value as (a feed's rate limit, a notification of the outbox): keys sorted, so
/// that one value is always one text.
package enum StoredJSON {
    /// The text of `value`.
    package static func text(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// The value stored as `text`; nil when it does not decode (written by a later version, say).
    package static func value<Value: Decodable>(_ type: Value.Type, from text: String) -> Value? {
        try? decoder.decode(type, from: Data(text.utf8))
    }

    private static let encoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    private static let decoder = JSONDecoder()
}
