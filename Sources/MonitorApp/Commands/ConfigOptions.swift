import ArgumentParser
import Foundation
import MonitorCore

/// The `--config` option the commands that read `feeds.yaml` share.
struct ConfigOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("The feeds file (default: $MONITOR_CONFIG, else ./feeds.yaml).", valueName: "file"))
    var config: String?

    /// The file to read: `--config`, else `$MONITOR_CONFIG`, else `feeds.yaml`.
    var path: String {
        if let config { return config }
        if let variable = ProcessInfo.processInfo.environment["MONITOR_CONFIG"], !variable.isEmpty { return variable }
        return "feeds.yaml"
    }

    /// The validated configuration; on problems, prints every one to standard error and exits 2.
    func load() throws -> MonitorConfig {
        try loadWithText().config
    }

    /// ``load()``, with the text it was read from.
    func loadWithText() throws -> (config: MonitorConfig, text: String) {
        let loaded = ConfigLoader().load(path: path)
        guard let config = loaded.config else {
            Console.error(loaded.renderedDiagnostics(colors: Console.colors(onStandardError: true)))
            throw ExitStatus.invalidConfig
        }
        return (config, loaded.source)
    }
}
