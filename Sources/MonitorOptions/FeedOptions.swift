import MonitorText

/// The validated options of one feed: every declared option with its value (or default) and where it was set.
package struct FeedOptions: Sendable {
    /// One option's value and where it came from.
    private struct Setting: Sendable {
        var value: OptionValue
        /// Where the value was written; nil for a default or a value set without one.
        var location: SourceLocation?
    }

    /// The values written in the file or set since, in the order first set: a short list, looked up by name.
    private var written: [(name: String, setting: Setting)] = []
    /// The declared defaults: one dictionary that every feed of a type shares, so that thousands of feeds keep one.
    private let defaults: [String: OptionValue]
    /// Where the feed's mapping starts.
    package var location: SourceLocation
    /// The feeds file's directory, which relative program paths are resolved from and programs run in; nil for the
    /// current directory.
    package var directory: String?

    package init(defaults: [String: OptionValue] = [:], location: SourceLocation = SourceLocation(line: 1, column: 1)) {
        self.defaults = defaults
        self.location = location
    }

    /// Sets `name` to `value`, as if written at `location`.
    package mutating func set(_ name: String, _ value: OptionValue, at location: SourceLocation? = nil) {
        let setting = Setting(value: value, location: location)
        if let index = written.firstIndex(where: { $0.name == name }) {
            written[index].setting = setting
        } else {
            written.append((name, setting))
        }
    }

    /// Makes room for `count` written values at once (appending alone grows the list to up to twice what a feed needs).
    package mutating func reserve(_ count: Int) { written.reserveCapacity(count) }

    /// The setting of `name`, written or default; options absent with no default have none.
    private func setting(_ name: String) -> Setting? {
        written.first { $0.name == name }?.setting ?? defaults[name].map { Setting(value: $0) }
    }

    /// The names of the options that have a value, written or default, sorted.
    package var names: [String] { Set(defaults.keys).union(written.map(\.name)).sorted() }

    /// Whether the user wrote `name` in the file (a default does not count).
    package func isSet(_ name: String) -> Bool { setting(name)?.location != nil }

    /// Where `name` was written, else where the feed starts.
    package func location(of name: String) -> SourceLocation { setting(name)?.location ?? location }

    /// The value of `name`, written or default.
    package subscript(name: String) -> OptionValue? { setting(name)?.value }

    package func string(_ name: String) -> String? {
        if case .string(let value)? = self[name] { value } else { nil }
    }

    package func duration(_ name: String) -> Duration? {
        if case .duration(let value)? = self[name] { value } else { nil }
    }
}
