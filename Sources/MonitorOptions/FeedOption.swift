/// Something that declares an option of `feeds.yaml`: a typed `FeedOption`, or a plain `OptionSpec`.
package protocol OptionDeclaration: Sendable {
    /// The declaration: name, type, default, doc.
    var spec: OptionSpec { get }
}

/// A typed option: its declaration, and how its value is read back from validated options as
/// `options[Self.keep]`. The default is written once, here.
///
/// ```swift
/// static let keep = FeedOption<Int>("keep", .integer(1...300), default: 50, doc: "How many events the feed keeps")
/// static let limit = FeedOption<Int?>("limit", .integer(1...Int.max), doc: "At most this many events")
/// ```
package struct FeedOption<Value: Sendable>: OptionDeclaration {
    package let spec: OptionSpec
    private let read: @Sendable (OptionValue?) -> Value

    package var name: String { spec.name }

    /// The value in `options`, else the default.
    package func value(in options: FeedOptions) -> Value { read(options[spec.name]) }
}

extension FeedOption where Value: OptionType {
    /// An option whose value is `value` when the key is absent.
    package init(_ name: String, _ kind: OptionSpec.Kind, default value: Value, secret: Bool = false, doc: String) {
        spec = OptionSpec(name, kind, default: value.optionValue(as: kind), secret: secret, doc: doc)
        read = { $0.flatMap(Value.init(optionValue:)) ?? value }
    }
}

extension FeedOption {
    /// An option without a default: nil when the key is absent.
    package init<Wrapped: OptionType>(
        _ name: String, _ kind: OptionSpec.Kind, required: Bool = false, secret: Bool = false, doc: String
    ) where Value == Wrapped? {
        spec = OptionSpec(name, kind, required: required, secret: secret, doc: doc)
        read = { $0.flatMap(Wrapped.init(optionValue:)) }
    }
}

extension FeedOptions {
    /// The value of a typed option, written or default.
    package subscript<Value>(_ option: FeedOption<Value>) -> Value { option.value(in: self) }
}

// MARK: - OptionDeclaration

extension OptionSpec: OptionDeclaration {
    package var spec: OptionSpec { self }
}

/// A Swift type an option's value is read as.
package protocol OptionType: Sendable {
    /// The value of a validated option, nil when it is of another type.
    init?(optionValue: OptionValue)
    /// The value as an option of `kind`.
    func optionValue(as kind: OptionSpec.Kind) -> OptionValue
}

extension Int: OptionType {
    /// A whole number or a size in bytes.
    package init?(optionValue: OptionValue) {
        switch optionValue {
        case .integer(let value), .byteSize(let value): self = value
        default: return nil
        }
    }

    /// A size for a `byteSize` option, else a whole number.
    package func optionValue(as kind: OptionSpec.Kind) -> OptionValue {
        if case .byteSize = kind { return .byteSize(self) }
        return .integer(self)
    }
}

extension String: OptionType {
    /// Text, a choice or a URL.
    package init?(optionValue: OptionValue) {
        guard case .string(let value) = optionValue else { return nil }
        self = value
    }

    package func optionValue(as kind: OptionSpec.Kind) -> OptionValue { .string(self) }
}

extension Bool: OptionType {
    /// `true` or `false`.
    package init?(optionValue: OptionValue) {
        guard case .boolean(let value) = optionValue else { return nil }
        self = value
    }

    package func optionValue(as kind: OptionSpec.Kind) -> OptionValue { .boolean(self) }
}

extension Duration: OptionType {
    package init?(optionValue: OptionValue) {
        guard case .duration(let value) = optionValue else { return nil }
        self = value
    }

    package func optionValue(as kind: OptionSpec.Kind) -> OptionValue { .duration(self) }
}

extension Array: OptionType where Element == String {
    /// A list of words.
    package init?(optionValue: OptionValue) {
        guard case .list(let value) = optionValue else { return nil }
        self = value
    }

    package func optionValue(as kind: OptionSpec.Kind) -> OptionValue { .list(self) }
}

extension Dictionary: OptionType where Key == String, Value == String {
    /// A mapping of names to text.
    package init?(optionValue: OptionValue) {
        guard case .mapping(let value) = optionValue else { return nil }
        self = value
    }

    package func optionValue(as kind: OptionSpec.Kind) -> OptionValue { .mapping(self) }
}
