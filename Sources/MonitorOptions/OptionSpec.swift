/// The declaration of one option: its name, type, default and one-line documentation.
package struct OptionSpec: Sendable {
    /// The type of an option's value, with its bounds.
    package enum Kind: Sendable {
        /// Any text; `format`, when given, is a check returning an error message or nil.
        case string(placeholder: String = "text", format: (@Sendable (String) -> String?)? = nil)
        /// A whole number within `range`.
        case integer(ClosedRange<Int>)
        /// `true` or `false`.
        case boolean
        /// A duration written `90s`, `15m`, `1h`, at least `minimum`.
        case duration(minimum: Duration = .seconds(1))
        /// A size in bytes, written `512KiB`, `32MiB` or a plain number of bytes.
        case byteSize
        /// One of a few words.
        case choice([String])
        /// A list of words (a YAML sequence, or one word).
        case list(placeholder: String)
        /// An `http://` or `https://` URL.
        case url
        /// A mapping of names to text (a YAML mapping); `key` and `value`, when given, check a name and a value and
        /// return an error message or nil. Each value may use `${VAR}`.
        case mapping(
            placeholder: String, key: (@Sendable (String) -> String?)? = nil,
            value: (@Sendable (String) -> String?)? = nil)

        /// Whether this is ``url``.
        package var isURL: Bool {
            if case .url = self { true } else { false }
        }
    }

    /// The key in `feeds.yaml`.
    package var name: String
    /// The type of the value.
    package var kind: Kind
    /// The value when the key is absent; nil when there is none.
    package var defaultValue: OptionValue?
    /// One line saying what the option does.
    package var doc: String
    /// Whether the key must be present.
    package var isRequired: Bool
    /// Whether the value is a secret, never shown.
    package var isSecret: Bool

    package init(
        _ name: String, _ kind: Kind, default defaultValue: OptionValue? = nil, required: Bool = false,
        secret: Bool = false, doc: String
    ) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.doc = doc
        self.isRequired = required
        self.isSecret = secret
    }

    /// The type as shown by `monitor sources` and in messages: "integer 1…300", "duration", "open|closed|all".
    package var typeDescription: String {
        switch kind {
        case .string(let placeholder, _): placeholder
        case .integer(let range) where range.upperBound == Int.max: "integer ≥ \(range.lowerBound)"
        case .integer(let range): "integer \(range.lowerBound)…\(range.upperBound)"
        case .boolean: "true|false"
        case .duration: "duration"
        case .byteSize: "size"
        case .choice(let words): words.joined(separator: "|")
        case .list(let placeholder): "list of \(placeholder)"
        case .url: "url"
        case .mapping(let placeholder, _, _): "mapping of \(placeholder)"
        }
    }
}
