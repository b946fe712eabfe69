import MonitorText

/// A configuration document as a plain tree with positions: what the app's YAML loader hands to the core.
package struct ConfigValue: Sendable, Hashable {
    /// How a scalar was written, which decides where an interpolation error inside it points.
    package enum ScalarStyle: Sendable, Hashable {
        /// Unquoted, on one line.
        case plain
        /// In single or double quotes.
        case quoted
        /// A literal (`|`) or folded (`>`) block.
        case block
    }

    package enum Content: Sendable, Hashable {
        /// An empty value, `~` or `null`.
        case null
        /// A scalar's text, not yet typed.
        case scalar(String, ScalarStyle)
        case list([ConfigValue])
        /// A mapping with string keys, in file order, duplicates kept.
        case map([ConfigEntry])
    }

    package var content: Content
    /// Where the value starts.
    package var location: SourceLocation

    package init(_ content: Content, at location: SourceLocation) {
        self.content = content
        self.location = location
    }

    /// What kind of value this is, for messages: "a mapping", "a list", "a scalar", "an empty value".
    package var kindDescription: String {
        switch content {
        case .null: "an empty value"
        case .scalar: "a scalar"
        case .list: "a list"
        case .map: "a mapping"
        }
    }
}

/// One `key: value` pair of a mapping.
package struct ConfigEntry: Sendable, Hashable {
    package var key: String
    /// Where the key is.
    package var keyLocation: SourceLocation
    package var value: ConfigValue

    package init(key: String, keyLocation: SourceLocation, value: ConfigValue) {
        self.key = key
        self.keyLocation = keyLocation
        self.value = value
    }
}
