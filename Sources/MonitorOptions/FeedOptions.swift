import MonitorText

/// The validated options of one feed: every declared option with its value (or default) and where it was set.
package struct FeedOptions: Sendable {
    /// One option's value and where it came from.
    package struct Setting: Sendable {
        var value: OptionValue
        /// Where the value was written; nil for a default.
        var location: SourceLocation?
    }

    /// The settings by option name; options absent with no default are absent here too.
    package private(set) var settings: [String: Setting]
    /// Where the feed's mapping starts.
    package var location: SourceLocation
    /// The feeds file's directory, which relative program paths are resolved from and programs run in; nil for the
    /// current directory.
    package var directory: String?

    package init(_ settings: [String: Setting] = [:], location: SourceLocation = SourceLocation(line: 1, column: 1)) {
        self.settings = settings
        self.location = location
    }

    /// Sets `name` to `value`, as if written at `location`.
    package mutating func set(_ name: String, _ value: OptionValue, at location: SourceLocation? = nil) {
        settings[name] = Setting(value: value, location: location)
    }

    /// Whether the user wrote `name` in the file (a default does not count).
    package func isSet(_ name: String) -> Bool { settings[name]?.location != nil }

    /// Where `name` was written, else where the feed starts.
    package func location(of name: String) -> SourceLocation { settings[name]?.location ?? location }

    /// The value of `name`, written or default.
    package subscript(name: String) -> OptionValue? { settings[name]?.value }

    package func string(_ name: String) -> String? {
        if case .string(let value)? = self[name] { value } else { nil }
    }

    package func duration(_ name: String) -> Duration? {
        if case .duration(let value)? = self[name] { value } else { nil }
    }
}
