import Foundation
import MonitorCore
import MonitorOptions
import MonitorText
import MonitorYAML

/// A `feeds.yaml` read, parsed and validated, with every problem found in it.
package struct LoadedConfig: Sendable {
    /// The path as the user gave it, used in messages.
    package var path: String
    /// The text of the file ("" when it could not be read).
    package var source: String
    /// The configuration, when the file is valid.
    package var config: MonitorConfig?
    /// Every problem, syntax errors included.
    package var diagnostics: [Diagnostic]
    /// Where secret values stand in the text, never to be shown.
    package var secrets: [SourceSpan] = []

    /// What is wrong in a few words, for a status line: `feeds file invalid (line 14)`, the first error's line; nil
    /// when the file is valid.
    package var problem: String? {
        guard config == nil else { return nil }
        let line = diagnostics.compactMap(\.location).min()?.line
        return "feeds file invalid" + (line.map { " (line \($0))" } ?? "")
    }

    /// The diagnostics rendered like a compiler's, each with its source line (secrets masked) and a caret.
    package func renderedDiagnostics(colors: Bool = false) -> String {
        var renderer = DiagnosticRenderer(path: path, source: source, colors: colors)
        renderer.secrets = secrets
        return renderer.render(diagnostics)
    }
}

/// Reads `feeds.yaml` through the YAML layer and validates it against the registered sources.
package struct ConfigLoader: Sendable {
    /// The largest configuration file read.
    package static let maximumSize = 4 << 20

    /// The sources `type:` may name.
    package var sources: [any FeedSource.Type] = Registry.sources
    /// The notifiers a `notify:` item's `type:` may name.
    package var notifiers: [any Notifier.Type] = Registry.notifiers
    /// The environment for `${VAR}` interpolation.
    package var environment: [String: String] = ProcessInfo.processInfo.environment

    /// Why a feeds file (or another file a command reads) could not be read, in words.
    package struct ReadProblem: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, without the path.
        package var message: String
        package var description: String { message }
        /// Whether the file does not exist.
        package var isMissing = false
    }

    /// Reads and validates the file at `path`.
    package func load(path: String) -> LoadedConfig {
        switch Self.read(path: path) {
        case .failure(let problem):
            return LoadedConfig(path: path, source: "", config: nil, diagnostics: [.error(problem.message, at: nil)])
        case .success(let text):
            return load(text: text, path: path)
        }
    }

    /// The text of the feeds file at `path`, or why it cannot be had (see ``bytes(path:)``); it must be UTF-8.
    package static func read(path: String) -> Result<String, ReadProblem> {
        switch bytes(path: path) {
        case .failure(let problem) where problem.isMissing:
            let message = "no such file (write a starter with `monitor init`, or name another with --config)"
            return .failure(ReadProblem(message: message, isMissing: true))
        case .failure(let problem):
            return .failure(problem)
        case .success(let data):
            guard let text = String(validating: data, as: UTF8.self) else {
                return .failure(ReadProblem(message: "the file is not UTF-8 text"))
            }
            return .success(text)
        }
    }

    /// The bytes of the file at `path` (at most ``maximumSize``), or why they cannot be had.
    ///
    /// Only a regular file is read. It is looked at before it is opened, so that a device is never opened, then
    /// opened without blocking (a FIFO put in its place meanwhile would block `open` for ever) and looked at again:
    /// a FIFO, a socket, a device or a directory is refused, never waited on or read without end.
    package static func bytes(path: String) -> Result<[UInt8], ReadProblem> {
        let failure = { (message: String) in Result<[UInt8], ReadProblem>.failure(ReadProblem(message: message)) }
        let problem = { (code: Int32) -> Result<[UInt8], ReadProblem> in
            switch code {
            case ENOENT:
                return .failure(ReadProblem(message: "no such file", isMissing: true))
            case ELOOP:
                return failure("too many levels of symbolic links: is there a symbolic link loop?")
            case ENOTDIR:
                return failure("no such file: a part of the path is not a directory")
            case EACCES:
                return failure("permission denied")
            default:
                return failure("cannot read the file: \(String(cString: strerror(code)).lowercasedFirst)")
            }
        }
        var status = stat()
        guard stat(path, &status) == 0 else { return problem(errno) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            return failure("is \(fileKind(status.st_mode)), not a regular file")
        }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return problem(errno) }
        defer { close(descriptor) }
        guard fstat(descriptor, &status) == 0 else { return problem(errno) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            return failure("is \(fileKind(status.st_mode)), not a regular file")
        }
        // Read to the end (the size may change meanwhile), one byte past the limit at most.
        var data: [UInt8] = []
        data.reserveCapacity(min(Int(status.st_size), Self.maximumSize) + 1)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while data.count <= Self.maximumSize {
            let wanted = min(chunk.count, Self.maximumSize + 1 - data.count)
            let count = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress!, wanted) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                return problem(errno)
            }
            data += chunk[..<count]
        }
        guard data.count <= Self.maximumSize else {
            return failure("the file is larger than \(ByteSizeFormat.string(Self.maximumSize)); is it the right file?")
        }
        return .success(data)
    }

    /// Parses and validates `text`, naming it `path` in messages.
    ///
    /// A YAML syntax error stops libyaml; to report the other problems of the file too, the line of each
    /// syntax error is blanked and the rest parsed again (a few times at most). Problems of absence found
    /// in such a repaired text ("missing …") are dropped: the blanked line may have held what is missing.
    package func load(text: String, path: String) -> LoadedConfig {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var syntaxErrors: [Diagnostic] = []
        var blanked: Set<Int> = []
        var tree: Node?
        var parsed = false
        for _ in 0..<8 {
            do {
                tree = try YAMLParser.parse(blanked.isEmpty ? text : lines.joined(separator: "\n"))
                parsed = true
                break
            } catch {
                let location = Self.relocate(error.mark, in: lines)
                // An error past every blanked line is a new one; one before it is an echo of the repair.
                if location.line > (blanked.max() ?? 0) {
                    syntaxErrors.append(.error(error.message, at: location))
                }
                var line = min(max(location.line, 1), lines.count)
                while blanked.contains(line), line > 1 { line -= 1 }
                guard !blanked.contains(line) else { break }
                blanked.insert(line)
                lines[line - 1] = ""
            }
        }
        guard parsed else {
            return LoadedConfig(path: path, source: text, config: nil, diagnostics: syntaxErrors)
        }
        var diagnostics = syntaxErrors
        let root = tree.map { convert($0, diagnostics: &diagnostics) }
        var validator = ConfigValidator(sources: sources, notifiers: notifiers, environment: environment)
        validator.source = text
        validator.directory = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
        let (config, problems) = validator.validate(root)
        diagnostics += syntaxErrors.isEmpty ? problems : problems.filter { !$0.isAbsence }
        return LoadedConfig(
            path: path, source: text, config: diagnostics.isEmpty ? config : nil, diagnostics: diagnostics,
            secrets: root.map { secrets(in: $0, lines: lines) } ?? [])
    }

    /// The places of the values of secret options (and of keys that look like misspelt secret options) in the
    /// feeds and the notifiers, so that no diagnostic ever quotes a token or a webhook's URL.
    private func secrets(in root: ConfigValue, lines: [String]) -> [SourceSpan] {
        let feedSecrets = Set(sources.flatMap { $0.options.map(\.spec).filter(\.isSecret).map(\.name) })
        let notifierSecrets = Set(notifiers.flatMap { $0.options.map(\.spec).filter(\.isSecret).map(\.name) })
        // A URL with a password is refused; no line that shows it may show the password either, whatever key
        // (even a misspelt one) it stands under.
        var spans = Self.spans(of: root, lines: lines, where: ConfigValidator.hasUserInfo)
        guard case .map(let top) = root.content else { return spans }
        for entry in top where entry.key == "feeds" || entry.key == "notify" {
            let names = entry.key == "feeds" ? feedSecrets : notifierSecrets
            guard case .list(let feeds) = entry.value.content else { continue }
            for feed in feeds {
                guard case .map(let entries) = feed.content else { continue }
                for entry in entries
                where names.contains(entry.key) || Suggestion.closest(to: entry.key, in: names) != nil {
                    spans += Self.spans(of: entry.value, lines: lines)
                }
            }
        }
        return spans
    }

    /// Where the text of each scalar in `value` that `include` takes stands: from its first column to the end of its
    /// last character.
    private static func spans(
        of value: ConfigValue, lines: [String], where include: (String) -> Bool = { _ in true }
    ) -> [SourceSpan] {
        switch value.content {
        case .null:
            return []
        case .list(let items):
            return items.flatMap { spans(of: $0, lines: lines, where: include) }
        case .map(let entries):
            return entries.flatMap { spans(of: $0.value, lines: lines, where: include) }
        case .scalar(let text, let style):
            guard include(text) else { return [] }
            let start = value.location
            // A block scalar's text is on the lines after its indicator: mask them whole.
            if style == .block {
                let count = text.split(separator: "\n", omittingEmptySubsequences: false).count
                return (start.line...start.line + max(1, count)).map {
                    SourceSpan(line: $0, column: 1, length: 1 << 20)
                }
            }
            // Escapes can make a quoted scalar longer than its text: then mask to the end of the line.
            let line = start.line <= lines.count ? lines[start.line - 1] : ""
            let quoted = style == .quoted
            let raw = line.dropFirst(start.column - 1)
            let length = quoted && raw.contains("\\") ? raw.count : text.count + (quoted ? 2 : 0)
            return [SourceSpan(line: start.line, column: start.column, length: length)]
        }
    }

    /// libyaml reports an error at the end of the input on the line after the text; point instead just past
    /// the last character, where the caret can be shown.
    static func relocate(_ mark: Mark, in lines: [String]) -> SourceLocation {
        guard
            let last = lines.lastIndex(where: { !$0.trimmingWhitespace().isEmpty }),
            mark.line > last + 1
        else {
            return SourceLocation(line: mark.line, column: mark.column)
        }
        var line = lines[last]
        if line.hasSuffix("\r") { line.removeLast() }
        return SourceLocation(line: last + 1, column: line.unicodeScalars.count + 1)
    }

    /// The YAML node as the core's neutral tree.
    private func convert(_ node: Node, diagnostics: inout [Diagnostic]) -> ConfigValue {
        let location = SourceLocation(line: node.mark.line, column: node.mark.column)
        switch node.content {
        case .scalar(let text, let style):
            switch style {
            case .plain where node.isNull && node.tag == nil: return ConfigValue(.null, at: location)
            case .plain: return ConfigValue(.scalar(text, .plain), at: location)
            case .singleQuoted, .doubleQuoted: return ConfigValue(.scalar(text, .quoted), at: location)
            case .literal, .folded: return ConfigValue(.scalar(text, .block), at: location)
            }
        case .sequence(let items):
            return ConfigValue(.list(items.map { convert($0, diagnostics: &diagnostics) }), at: location)
        case .mapping(let pairs):
            var entries: [ConfigEntry] = []
            for pair in pairs {
                let keyLocation = SourceLocation(line: pair.key.mark.line, column: pair.key.mark.column)
                guard case .scalar(let key, _) = pair.key.content else {
                    diagnostics.append(.error("a key must be a plain word, not a list or mapping", at: keyLocation))
                    continue
                }
                entries.append(
                    ConfigEntry(
                        key: key, keyLocation: keyLocation, value: convert(pair.value, diagnostics: &diagnostics)))
            }
            return ConfigValue(.map(entries), at: location)
        }
    }
}
