import MonitorCore
import MonitorOptions
import MonitorText

/// The text of `monitor sources`, generated from the declarations so that it cannot drift from them.
package enum SourcesListing {
    /// Every source with its options, then the options of every feed, then the settings, then every notifier type
    /// with its options and the options of every notifier.
    package static func render(_ sources: [any FeedSource.Type], notifiers: [any Notifier.Type] = []) -> String {
        var output = "Feed types, chosen with `type:` in feeds.yaml:\n"
        for source in sources.sorted(by: { $0.type < $1.type }) {
            output += "\n\(source.type): \(source.summary)\n"
            output += table(source.options.map(\.spec))
        }
        let common = FeedConfig.commonSpecs
        output += "\nOptions of every feed:\n" + table(common)
        output += "\nSettings, under `settings:`:\n" + table(Settings.specs)
        if !notifiers.isEmpty {
            output += "\nNotifier types, chosen with `type:` in a `notify:` item:\n"
            for notifier in notifiers.sorted(by: { $0.type < $1.type }) {
                output += "\n\(notifier.type): \(notifier.summary)\n"
                output += table(notifier.options.map(\.spec))
            }
            output += "\nOptions of every notifier:\n" + table(NotifierConfig.commonSpecs)
        }
        output +=
            "\nDurations are written 90s, 15m, 1h; any value may use ${VAR}, ${VAR:-default} or ${VAR:?message}.\n"
        return output
    }

    private static func table(_ specs: [OptionSpec]) -> String {
        let rows = specs.map { spec -> [String] in
            let value: String
            if spec.isRequired {
                value = "required"
            } else if let defaultValue = spec.defaultValue {
                value = "default \(spec.isSecret ? "(hidden)" : defaultValue.description)"
            } else {
                value = "optional"
            }
            return [spec.name, spec.typeDescription, value, spec.doc]
        }
        let widths = (0..<3).map { column in rows.map { TerminalText.width($0[column]) }.max() ?? 0 }
        return rows.map { row in
            "  " + (0..<3).map { row[$0].padding(to: widths[$0]) }.joined(separator: "  ") + "  " + row[3] + "\n"
        }.joined()
    }
}

extension String {
    /// The string followed by spaces up to `width` cells of a terminal (`TerminalText.width`).
    func padding(to width: Int) -> String {
        let cells = TerminalText.width(self)
        return cells >= width ? self : self + String(repeating: " ", count: width - cells)
    }
}
