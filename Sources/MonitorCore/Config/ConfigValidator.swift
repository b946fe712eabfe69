import Foundation
import MonitorOptions
import MonitorText

/// Validates a configuration tree against the settings and the declarations of the known sources.
///
/// Every problem of the file is reported, not only the first; no key is ever silently ignored.
package struct ConfigValidator: Sendable {
    /// The known sources, by type.
    var sources: [any FeedSource.Type]
    /// The known notifiers, by type.
    var notifiers: [any Notifier.Type]
    /// The environment for `${VAR}` interpolation.
    var environment: [String: String]
    /// The text of the file, to place an error inside a quoted or block rule (`where:`) at its character.
    package var source = ""
    /// The feeds file's directory, given to every feed's and notifier's options.
    package var directory: String?

    /// A validator for the given sources, notifiers and environment.
    package init(
        sources: [any FeedSource.Type], notifiers: [any Notifier.Type] = [], environment: [String: String]
    ) {
        self.sources = sources
        self.notifiers = notifiers
        self.environment = environment
    }

    /// The configuration, when `root` is valid, and every problem found.
    package func validate(_ root: ConfigValue?) -> (config: MonitorConfig?, diagnostics: [Diagnostic]) {
        var diagnostics: [Diagnostic] = []
        guard let root else {
            let message = "the file is empty: it needs a 'feeds:' list (`monitor init` writes a starter)"
            return (nil, [.error(message, at: nil, isAbsence: true)])
        }
        guard case .map(let entries) = root.content else {
            let message =
                "expected a mapping with 'settings:' and 'feeds:' at the top level, found \(root.kindDescription)"
            return (nil, [.error(message, at: root.location)])
        }
        let top = uniqueEntries(entries, in: "the top level", diagnostics: &diagnostics)
        for entry in top where !["settings", "feeds", "notify"].contains(entry.key) {
            let hint = hint(for: entry.key, among: ["settings", "feeds", "notify"])
            diagnostics.append(.error("unknown top-level key '\(entry.key)'\(hint)", at: entry.keyLocation))
        }

        var settings = Settings()
        if let entry = top.first(where: { $0.key == "settings" }) {
            switch entry.value.content {
            case .null:
                break
            case .map(let entries):
                let options = options(
                    uniqueEntries(entries, in: "settings", diagnostics: &diagnostics), specs: Settings.specs,
                    at: entry.value.location, context: "settings", diagnostics: &diagnostics)
                settings = Settings(options)
            default:
                let message = "'settings' must be a mapping of settings, found \(entry.value.kindDescription)"
                diagnostics.append(.error(message, at: entry.value.location))
            }
        }

        var feeds: [(config: FeedConfig, source: any FeedSource.Type)] = []
        if let entry = top.first(where: { $0.key == "feeds" }) {
            switch entry.value.content {
            case .list(let items) where !items.isEmpty:
                feeds = self.feeds(items, diagnostics: &diagnostics)
            case .list, .null:
                diagnostics.append(.error("'feeds' is empty: add at least one feed", at: entry.value.location))
            default:
                let message =
                    "'feeds' must be a list of feeds (each item starting with '- name:'), found \(entry.value.kindDescription)"
                diagnostics.append(.error(message, at: entry.value.location))
            }
        } else {
            diagnostics.append(.error("missing 'feeds:' list", at: root.location, isAbsence: true))
        }
        var notifiers: [NotifierConfig] = []
        if let entry = top.first(where: { $0.key == "notify" }) {
            switch entry.value.content {
            case .list(let items):
                notifiers = self.notifiers(
                    items, feeds: feeds.map(\.config.name), diagnostics: &diagnostics,
                    sources: Dictionary(
                        feeds.map { ($0.config.name, $0.source) }, uniquingKeysWith: { first, _ in first }))
            case .null:
                break
            default:
                let message =
                    "'notify' must be a list of notifiers (each item starting with '- name:'), found \(entry.value.kindDescription)"
                diagnostics.append(.error(message, at: entry.value.location))
            }
        }
        guard diagnostics.isEmpty else { return (nil, diagnostics) }
        // Each feed's source is made here, once, from options known to be valid.
        let sources = Dictionary(
            uniqueKeysWithValues: feeds.map { ($0.config.name, $0.source.init(options: $0.config.options)) })
        let config = MonitorConfig(
            settings: settings, feeds: feeds.map(\.config), notifiers: notifiers, sources: sources)
        return (config, diagnostics)
    }

    // MARK: - Feeds

    private func feeds(
        _ items: [ConfigValue], diagnostics: inout [Diagnostic]
    ) -> [(config: FeedConfig, source: any FeedSource.Type)] {
        var feeds: [(config: FeedConfig, source: any FeedSource.Type)] = []
        var firstUse: [String: SourceLocation] = [:]
        // Each type's defaults, made once and shared by its feeds.
        var defaults: [ObjectIdentifier: FeedOptions] = [:]
        for (index, item) in items.enumerated() {
            guard
                let (entries, label, source) = entry(
                    item, index: index, kind: "feed", among: sources.map { ($0.type, $0) },
                    common: FeedConfig.commonSpecs, firstUse: &firstUse, diagnostics: &diagnostics)
            else { continue }
            let before = diagnostics.count
            let specs = Self.specs(of: source)
            let start = defaults[ObjectIdentifier(source)] ?? FeedOptions.defaults(of: specs)
            defaults[ObjectIdentifier(source)] = start
            let options = options(
                entries, specs: specs, from: start, at: item.location, context: label, diagnostics: &diagnostics)
            if diagnostics.count == before {
                diagnostics += source.check(options)
            }
            diagnostics += ruleProblems(in: entries, options: options, details: source.detailNames)
            guard let feedName = uniqueName(options, kind: "feed", firstUse: &firstUse, diagnostics: &diagnostics)
            else { continue }
            feeds.append(
                (FeedConfig(name: feedName, type: source.type, options: options), source))
        }
        return feeds
    }

    /// The entries of feed or notifier #`index` (`kind`), its label for messages and its `type:` among `types`; nil
    /// when it is not a mapping or its type is missing or unknown. Without its type its keys cannot be judged: the
    /// `common` ones it has are still checked, and its name recorded in `firstUse`.
    private func entry<Kind>(
        _ item: ConfigValue, index: Int, kind: String, among types: [(name: String, type: Kind)], common: [OptionSpec],
        firstUse: inout [String: SourceLocation], diagnostics: inout [Diagnostic]
    ) -> (entries: [ConfigEntry], label: String, type: Kind)? {
        guard case .map(let rawEntries) = item.content else {
            let message =
                "\(kind) #\(index + 1) must be a mapping with 'name:' and 'type:', found \(item.kindDescription)"
            diagnostics.append(.error(message, at: item.location))
            return nil
        }
        let entries = uniqueEntries(rawEntries, in: "this \(kind)", diagnostics: &diagnostics)
        let name = entries.first { $0.key == "name" }
        let label = name.flatMap { scalarText($0.value) }.map { "\(kind) '\($0)'" } ?? "\(kind) #\(index + 1)"
        guard
            let type = type(
                of: entries, among: types, kind: kind, label: label, at: item.location, diagnostics: &diagnostics)
        else {
            let specs = common.filter { $0.name != "type" }
            let known = entries.filter { entry in specs.contains { $0.name == entry.key } }
            let options = options(known, specs: specs, at: item.location, context: label, diagnostics: &diagnostics)
            _ = uniqueName(options, kind: kind, firstUse: &firstUse, diagnostics: &diagnostics)
            return nil
        }
        return (entries, label, type)
    }

    /// The name of `options`, recorded in `firstUse`; nil (and an error when an earlier feed or notifier, `kind`,
    /// took it) when it is missing or taken. Checked whatever else is wrong with either, so that both are reported.
    private func uniqueName(
        _ options: FeedOptions, kind: String, firstUse: inout [String: SourceLocation], diagnostics: inout [Diagnostic]
    ) -> String? {
        guard let name = options.string("name") else { return nil }
        if let first = firstUse[name] {
            let message = "duplicate \(kind) name '\(name)' (first used on line \(first.line))"
            diagnostics.append(.error(message, at: options.location(of: "name")))
            return nil
        }
        firstUse[name] = options.location(of: "name")
        return name
    }

    /// The common feed options merged with a source's own: a source's option replaces a common one of the
    /// same name.
    static func specs(of source: any FeedSource.Type) -> [OptionSpec] {
        let own = source.options.map(\.spec)
        return FeedConfig.commonSpecs.filter { common in !own.contains { $0.name == common.name } } + own
    }

    /// The `type:` among `entries`, one of `types` (by name): a missing, non-text or unknown type is an error that
    /// lists the known ones (an unknown one names its `kind`, "feed" or "notifier", and the closest known type).
    private func type<Kind>(
        of entries: [ConfigEntry], among types: [(name: String, type: Kind)], kind: String, label: String,
        at location: SourceLocation, diagnostics: inout [Diagnostic]
    ) -> Kind? {
        let known = types.map(\.name).sorted()
        guard let entry = entries.first(where: { $0.key == "type" }) else {
            let message = "\(label) is missing 'type' (known types: \(known.joined(separator: ", ")))"
            diagnostics.append(.error(message, at: location, isAbsence: true))
            return nil
        }
        guard let text = scalarText(entry.value) else {
            diagnostics.append(
                .error("'type' must be one of: \(known.joined(separator: ", "))", at: entry.value.location))
            return nil
        }
        switch Interpolation.expand(text, environment: environment) {
        case .failure(let failure):
            diagnostics.append(
                .error(failure.message, at: self.location(in: entry.value, offset: failure.offset, text: text)))
            return nil
        case .success(let name):
            if let found = types.first(where: { $0.name == name }) { return found.type }
            let guess = Suggestion.closest(to: name, in: known).map { "did you mean '\($0)'? " } ?? ""
            let message =
                "unknown \(kind) type '\(TerminalText.sanitized(name))' (\(guess)known types: "
                + "\(known.joined(separator: ", ")))"
            diagnostics.append(.error(message, at: entry.value.location))
            return nil
        }
    }

    // MARK: - Notifiers

    private func notifiers(
        _ items: [ConfigValue], feeds: [String], diagnostics: inout [Diagnostic],
        sources: [String: any FeedSource.Type] = [:]
    ) -> [NotifierConfig] {
        var notifiers: [NotifierConfig] = []
        var firstUse: [String: SourceLocation] = [:]
        for (index, item) in items.enumerated() {
            guard
                let (entries, label, type) = entry(
                    item, index: index, kind: "notifier", among: self.notifiers.map { ($0.type, $0) },
                    common: NotifierConfig.commonSpecs, firstUse: &firstUse, diagnostics: &diagnostics)
            else { continue }
            let specs = Self.specs(of: type)
            let options = options(entries, specs: specs, at: item.location, context: label, diagnostics: &diagnostics)
            // A notifier's own checks look at the options that are valid, whatever else is wrong.
            diagnostics += type.check(options)
            diagnostics += NotifierConfig.checkDigest(options)
            diagnostics += ruleProblems(
                in: entries, options: options,
                details: Self.details(of: options[NotifierConfig.feeds], sources: sources))
            checkWords(
                in: entries, key: NotifierConfig.feeds.name, known: feeds, what: "feed", diagnostics: &diagnostics)
            checkWords(
                in: entries, key: NotifierConfig.on.name, known: FeedNotification.Event.selectable.map(\.rawValue),
                what: "event", diagnostics: &diagnostics)
            guard
                let notifierName = uniqueName(options, kind: "notifier", firstUse: &firstUse, diagnostics: &diagnostics)
            else { continue }
            notifiers.append(
                NotifierConfig(name: notifierName, type: type.type, options: options))
        }
        return notifiers
    }

    /// The common notifier options merged with a notifier's own.
    static func specs(of notifier: any Notifier.Type) -> [OptionSpec] {
        let own = notifier.options.map(\.spec)
        return NotifierConfig.commonSpecs.filter { common in !own.contains { $0.name == common.name } } + own
    }

    /// An error at each word of the list `key` that is not one of `known`.
    private func checkWords(
        in entries: [ConfigEntry], key: String, known: [String], what: String, diagnostics: inout [Diagnostic]
    ) {
        guard let entry = entries.first(where: { $0.key == key }) else { return }
        let words: [ConfigValue]
        switch entry.value.content {
        case .list(let items): words = items
        case .scalar: words = [entry.value]
        default: return
        }
        for word in words {
            guard let raw = scalarText(word),
                case .success(let text) = Interpolation.expand(raw, environment: environment)
            else { continue }
            let value = text.trimmingWhitespace()
            guard !value.isEmpty, !known.contains(value) else { continue }
            let guess = Suggestion.closest(to: value, in: known).map { "did you mean '\($0)'? " } ?? ""
            let list = known.isEmpty ? "none" : known.joined(separator: ", ")
            let message =
                "unknown \(what) '\(TerminalText.sanitized(value))' in '\(key)' (\(guess)known \(what)s: \(list))"
            diagnostics.append(.error(message, at: word.location))
        }
    }

    // MARK: - Options

    private func options(
        _ entries: [ConfigEntry], specs: [OptionSpec], from start: FeedOptions? = nil, at location: SourceLocation,
        context: String, diagnostics: inout [Diagnostic]
    ) -> FeedOptions {
        var options = start ?? FeedOptions.defaults(of: specs)
        options.location = location
        options.directory = directory
        options.reserve(entries.count)
        for entry in entries {
            guard let spec = specs.first(where: { $0.name == entry.key }) else {
                let hint = hint(for: entry.key, among: specs.map(\.name))
                diagnostics.append(.error("unknown key '\(entry.key)' in \(context)\(hint)", at: entry.keyLocation))
                continue
            }
            switch value(of: entry.value, for: spec) {
            case .success(let value?):
                options.set(spec.name, value, at: entry.value.location)
            case .success(nil):
                if spec.isRequired {
                    diagnostics.append(.error("'\(spec.name)' needs a value", at: entry.value.location))
                }
            case .failure(let diagnostic):
                diagnostics.append(diagnostic)
            }
        }
        for spec in specs where spec.isRequired && !entries.contains(where: { $0.key == spec.name }) {
            let message = "\(context) is missing required option '\(spec.name)' (\(spec.doc.lowercasedFirst))"
            diagnostics.append(.error(message, at: location, isAbsence: true))
        }
        return options
    }

    /// The typed value of `value` for `spec`; nil for an empty value.
    private func value(of value: ConfigValue, for spec: OptionSpec) -> Result<OptionValue?, Diagnostic> {
        switch value.content {
        case .null:
            return .success(nil)
        case .scalar(let raw, _):
            if case .list = spec.kind {
                return .failure(mismatch(spec, value, found: value.kindDescription, example: "[a, b]"))
            }
            if case .mapping = spec.kind {
                return .failure(mismatch(spec, value, found: value.kindDescription, example: "{NAME: value}"))
            }
            switch Interpolation.expand(raw, environment: environment) {
            case .failure(let failure):
                return .failure(.error(failure.message, at: location(in: value, offset: failure.offset, text: raw)))
            case .success(let text):
                return typed(text, for: spec, at: value.location)
            }
        case .list(let items):
            guard case .list = spec.kind else {
                return .failure(mismatch(spec, value, found: "a list"))
            }
            var words: [String] = []
            for item in items {
                guard let raw = scalarText(item) else {
                    let message =
                        "'\(spec.name)' must be a list of \(spec.typeDescription.dropFirst(8)), found \(item.kindDescription) in it"
                    return .failure(.error(message, at: item.location))
                }
                switch Interpolation.expand(raw, environment: environment) {
                case .failure(let failure):
                    return .failure(.error(failure.message, at: location(in: item, offset: failure.offset, text: raw)))
                case .success(let word) where word.trimmingWhitespace().isEmpty:
                    return .failure(.error("'\(spec.name)' has an empty item", at: item.location))
                case .success(let word):
                    words.append(word.trimmingWhitespace())
                }
            }
            return .success(.list(words))
        case .map(let entries):
            guard case .mapping(_, let check, let valueCheck) = spec.kind else {
                return .failure(mismatch(spec, value, found: "a mapping"))
            }
            return mapping(entries, for: spec, check: check, valueCheck: valueCheck)
        }
    }

    /// The names and texts of a mapping option; each value may use `${VAR}`, an empty one is "".
    private func mapping(
        _ entries: [ConfigEntry], for spec: OptionSpec, check: (@Sendable (String) -> String?)?,
        valueCheck: (@Sendable (String) -> String?)?
    ) -> Result<OptionValue?, Diagnostic> {
        var values: [String: String] = [:]
        var seen: [String: SourceLocation] = [:]
        for entry in entries {
            if let first = seen[entry.key] {
                let message = "duplicate key '\(entry.key)' in '\(spec.name)' (first on line \(first.line))"
                return .failure(.error(message, at: entry.keyLocation))
            }
            seen[entry.key] = entry.keyLocation
            if let problem = check?(entry.key) {
                return .failure(
                    .error("invalid name '\(entry.key)' in '\(spec.name)': \(problem)", at: entry.keyLocation))
            }
            switch entry.value.content {
            case .null:
                values[entry.key] = ""
            case .scalar(let raw, _):
                switch Interpolation.expand(raw, environment: environment) {
                case .failure(let failure):
                    let location = location(in: entry.value, offset: failure.offset, text: raw)
                    return .failure(.error(failure.message, at: location))
                case .success(let text):
                    if let problem = valueCheck?(text) {
                        let message = "invalid value of '\(entry.key)' in '\(spec.name)': \(problem)"
                        return .failure(.error(message, at: entry.value.location))
                    }
                    values[entry.key] = text
                }
            case .list, .map:
                let message =
                    "'\(spec.name)' maps each name to text, found \(entry.value.kindDescription) for '\(entry.key)'"
                return .failure(.error(message, at: entry.value.location))
            }
        }
        return .success(.mapping(values))
    }

    private func typed(_ text: String, for spec: OptionSpec, at location: SourceLocation) -> Result<
        OptionValue?, Diagnostic
    > {
        let fail = { (message: String) in Result<OptionValue?, Diagnostic>.failure(.error(message, at: location)) }
        // A secret is never quoted; other text is quoted without the control characters it may hold.
        let shown = spec.isSecret ? "its value (not shown)" : "'\(TerminalText.sanitized(text))'"
        if spec.isSecret || spec.kind.isURL, let control = text.unicodeScalars.first(where: TerminalText.isControl) {
            return fail(
                "'\(spec.name)' contains \(Self.describe(control)), which an HTTP request cannot carry: "
                    + "check where its value comes from (an environment variable?)")
        }
        switch spec.kind {
        case .string(_, let format):
            if text.isEmpty { return .success(nil) }
            if let problem = format?(text) { return fail("invalid \(spec.name) \(shown): \(problem)") }
            return .success(.string(text))
        case .integer(let range):
            guard let number = Int(text.trimmingWhitespace()) else {
                return fail("'\(spec.name)' must be \(describe(range)), not \(shown)")
            }
            guard range.contains(number) else {
                return fail("'\(spec.name)' must be \(describe(range)), not \(number)")
            }
            return .success(.integer(number))
        case .boolean:
            switch text.trimmingWhitespace() {
            case "true": return .success(.boolean(true))
            case "false": return .success(.boolean(false))
            default: return fail("'\(spec.name)' must be true or false, not \(shown)")
            }
        case .duration(let minimum):
            guard let duration = DurationFormat.parse(text) else {
                let hint = Int(text.trimmingWhitespace()) != nil ? " (add a unit: s, m or h)" : ""
                return fail("'\(spec.name)' must be a duration like 90s, 15m or 1h, not \(shown)\(hint)")
            }
            guard duration >= minimum else {
                return fail("'\(spec.name)' must be at least \(DurationFormat.string(minimum)), not \(shown)")
            }
            return .success(.duration(duration))
        case .byteSize:
            guard let bytes = ByteSizeFormat.parse(text), bytes > 0 else {
                return fail("'\(spec.name)' must be a size like 512KiB or 32MiB, not \(shown)")
            }
            return .success(.byteSize(bytes))
        case .choice(let words):
            let word = text.trimmingWhitespace()
            guard words.contains(word) else {
                let guess = Suggestion.closest(to: word, in: words).map { " (did you mean '\($0)'?)" } ?? ""
                return fail("'\(spec.name)' must be one of \(words.joined(separator: ", ")), not \(shown)\(guess)")
            }
            return .success(.string(word))
        case .list:
            return .success(.list([text]))
        case .url:
            let url = text.trimmingWhitespace()
            if Self.hasUserInfo(url) {
                return fail(
                    "'\(spec.name)' must not hold a user name or password (before '@'): a credential goes in 'token', "
                        + "never in a URL")
            }
            guard let scheme = url.range(of: "://"),
                ["http", "https"].contains(url[..<scheme.lowerBound].lowercased()),
                url.count > url.distance(from: url.startIndex, to: scheme.upperBound), !url.contains(" ")
            else {
                return fail("'\(spec.name)' must be an http:// or https:// URL, not \(shown)")
            }
            return .success(.string(url.hasSuffix("/") ? String(url.dropLast()) : url))
        case .mapping:
            return fail("'\(spec.name)' must be a \(spec.typeDescription), not '\(text)'")
        }
    }

    /// Whether `url` holds a user name or password (`http://user:pass@host`).
    package static func hasUserInfo(_ url: String) -> Bool {
        guard let scheme = url.range(of: "://") else { return false }
        return url[scheme.upperBound...].prefix { !"/?#".contains($0) }.contains("@")
    }

    /// A control character, named: "a line break (U+000A)".
    static func describe(_ scalar: Unicode.Scalar) -> String {
        let code =
            "U+" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
            + String(scalar.value, radix: 16, uppercase: true)
        switch scalar {
        case "\n", "\r": return "a line break (\(code))"
        case "\t": return "a tab (\(code))"
        case "\0": return "a NUL character (\(code))"
        default: return "a control character (\(code))"
        }
    }

    private func mismatch(_ spec: OptionSpec, _ value: ConfigValue, found: String, example: String? = nil) -> Diagnostic
    {
        let expected: String
        switch spec.kind {
        case .list(let placeholder): expected = "a list of \(placeholder)" + (example.map { ", like \($0)" } ?? "")
        case .mapping(let placeholder, _, _):
            expected = "a mapping of \(placeholder)" + (example.map { ", like \($0)" } ?? "")
        case .integer(let range): expected = describe(range)
        default: expected = "a \(spec.typeDescription)"
        }
        return .error("'\(spec.name)' must be \(expected), found \(found)", at: value.location)
    }

    private func describe(_ range: ClosedRange<Int>) -> String {
        range.upperBound == Int.max
            ? "a whole number ≥ \(range.lowerBound)" : "a whole number from \(range.lowerBound) to \(range.upperBound)"
    }

    // MARK: - Helpers

    /// The entries of a mapping, with a diagnostic for each repeated key (whose later value is dropped).
    private func uniqueEntries(_ entries: [ConfigEntry], in context: String, diagnostics: inout [Diagnostic])
        -> [ConfigEntry]
    {
        var seen: [String: SourceLocation] = [:]
        var unique: [ConfigEntry] = []
        for entry in entries {
            if let first = seen[entry.key] {
                let message = "duplicate key '\(entry.key)' in \(context) (first on line \(first.line))"
                diagnostics.append(.error(message, at: entry.keyLocation))
                continue
            }
            seen[entry.key] = entry.keyLocation
            unique.append(entry)
        }
        return unique
    }

    private func hint(for key: String, among names: [String]) -> String {
        if let guess = Suggestion.closest(to: key, in: names) { return " (did you mean '\(guess)'?)" }
        return " (known keys: \(names.joined(separator: ", ")))"
    }

    private func scalarText(_ value: ConfigValue) -> String? {
        if case .scalar(let text, _) = value.content { text } else { nil }
    }

    /// Where the character at `offset` of a scalar's text stands in the file, when that can be known exactly.
    private func location(in value: ConfigValue, offset: Int, text: String) -> SourceLocation {
        guard case .scalar(_, let style) = value.content, style != .block, !text.prefix(offset).contains("\n") else {
            return value.location
        }
        return SourceLocation(
            line: value.location.line, column: value.location.column + offset + (style == .quoted ? 1 : 0))
    }
}

extension String {
    /// The string with its first letter lower-cased, for docs quoted inside a sentence.
    package var lowercasedFirst: String { prefix(1).lowercased() + dropFirst() }
}
