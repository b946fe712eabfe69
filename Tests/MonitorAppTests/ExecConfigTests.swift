import Foundation
import Testing

@testable import MonitorApp
@testable import MonitorCore
@testable import MonitorText

/// The diagnostics of `text` as `LINE:COL: MESSAGE` strings, in order.
private func problems(_ text: String, environment: [String: String] = [:]) -> [String] {
    let loaded = ConfigLoader(environment: environment).load(text: text, path: "feeds.yaml")
    return DiagnosticRenderer(path: "", source: "").sorted(loaded.diagnostics).map { diagnostic in
        "\(diagnostic.location.map { "\($0)" } ?? "-"): \(diagnostic.message)"
    }
}

@Suite("feeds.yaml keys of `type: exec`, and mapping options")
struct ExecConfigTests {
    @Test("an exec feed's command, retention, timeout and env, with ${VAR} in env values")
    func valid() throws {
        let loaded = ConfigLoader(environment: ["ROOT": "https://quakes.test"]).load(
            text: """
                feeds:
                  - name: quakes
                    type: exec
                    command: [python3, examples/sources/usgs_quakes.py, --min-magnitude, "4.5"]
                    retention: replace
                    timeout: 60s
                    env: {USGS_API: "${ROOT}/api", EMPTY: "", PLAIN: ~}
                """, path: "feeds.yaml")
        #expect(loaded.diagnostics.isEmpty)
        let options = try #require(loaded.config?.feeds.first?.options)
        #expect(options.list("command") == ["python3", "examples/sources/usgs_quakes.py", "--min-magnitude", "4.5"])
        #expect(options.string("retention") == "replace")
        #expect(options.duration("timeout") == .seconds(60))
        #expect(options.mapping("env") == ["USGS_API": "https://quakes.test/api", "EMPTY": "", "PLAIN": ""])
        #expect(options.integer("keep") == 500)
    }

    @Test("wrong exec keys are errors with their line and column")
    func invalid() {
        let text = """
            feeds:
              - name: a
                type: exec
                command: python3 source.py
                env: [A=b]
              - name: b
                type: exec
                command: [sh]
                env:
                  1BAD: x
              - name: c
                type: exec
                command: [sh]
                env: {MONITOR_FEED: x}
              - name: d
                type: exec
                command: [sh]
                env:
                  OK: ${MISSING}
                  LIST: [a]
              - name: e
                type: exec
                retention: replace
                keep: 10
                command: [sh]
              - name: f
                type: exec
            """
        #expect(
            problems(text) == [
                "4:14: 'command' must be a list of words, like [a, b], found a scalar",
                "5:10: 'env' must be a mapping of NAME: value, found a list",
                "10:7: invalid name '1BAD' in 'env': a variable name has letters, digits and '_', and does not start with a digit",
                "14:11: invalid name 'MONITOR_FEED' in 'env': MONITOR_ variables are set by monitor itself",
                "19:11: environment variable 'MISSING' is not set (write ${MISSING:-} to allow it to be unset)",
                "24:11: 'keep' applies only with 'retention: keep_newest'",
                "26:5: feed 'f' is missing required option 'command' (the program and its arguments, run without a shell, e.g. [python3, source.py, --flag])",
            ])
    }

    @Test("a mapping's value that is not text, and a repeated name, are errors where they stand")
    func mappingValues() {
        let text = """
            feeds:
              - name: d
                type: exec
                command: [sh]
                env:
                  LIST: [a]
              - name: e
                type: exec
                command: [sh]
                env: {A: x, A: y}
            """
        #expect(
            problems(text) == [
                "6:13: 'env' maps each name to text, found a list for 'LIST'",
                "10:17: duplicate key 'A' in 'env' (first on line 10)",
            ])
    }
}
