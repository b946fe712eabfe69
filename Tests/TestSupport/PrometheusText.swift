import Foundation

/// The samples of a Prometheus text exposition (format 0.0.4), read two ways: by a small reader of its own, and by
/// Python's `prometheus_client` — the real parser — in a separate `python3` process.
package struct PrometheusText: Sendable, Hashable {
    /// One sample line: `name{labels} value`.
    package struct Sample: Sendable, Hashable, CustomStringConvertible {
        /// The sample's name (`monitor_polls_total`, `…_bucket`, `…_sum`).
        package var name: String
        /// Its labels, unescaped.
        package var labels: [String: String]
        /// Its value.
        package var value: Double

        /// A sample.
        package init(_ name: String, _ labels: [String: String] = [:], _ value: Double) {
            self.name = name
            self.labels = labels
            self.value = value
        }

        /// `name{a="x",b="y"} value`, labels sorted, for messages.
        package var description: String {
            let shown = labels.sorted { $0.key < $1.key }.map { "\($0.key)=\(String(reflecting: $0.value))" }
            return "\(name){\(shown.joined(separator: ","))} \(value)"
        }
    }

    /// The `# TYPE` of each metric family, by name.
    package var types: [String: String]
    /// Every sample, in order.
    package var samples: [Sample]

    /// Reads `text`; a line it cannot read is an error naming its number.
    package init(_ text: String) throws {
        types = [:]
        samples = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty { continue }
            if line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst(7).split(separator: " ")
                guard parts.count == 2 else { throw Unreadable(line: index + 1, text: String(line)) }
                types[String(parts[0])] = String(parts[1])
                continue
            }
            if line.hasPrefix("#") { continue }
            guard let sample = Self.sample(line) else { throw Unreadable(line: index + 1, text: String(line)) }
            samples.append(sample)
        }
    }

    private init(types: [String: String], samples: [Sample]) {
        self.types = types
        self.samples = samples
    }

    /// The value of the one sample named `name` with exactly `labels`; nil when there is none.
    package func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// The samples named `name`.
    package func samples(_ name: String) -> [Sample] {
        samples.filter { $0.name == name }
    }

    /// A line the reader could not read.
    package struct Unreadable: Error, CustomStringConvertible {
        /// Its number, from 1.
        package var line: Int
        /// The line.
        package var text: String

        package var description: String { "line \(line) is not a sample: \(text)" }
    }

    private static func sample(_ line: Substring) -> Sample? {
        var rest = line[...]
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
        guard !name.isEmpty else { return nil }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let key = rest.prefix { $0 != "=" }
                rest = rest.dropFirst(key.count)
                guard rest.hasPrefix("=\"") else { return nil }
                rest = rest.dropFirst(2)
                var value = ""
                while let character = rest.first, character != "\"" {
                    rest = rest.dropFirst()
                    if character == "\\" {
                        guard let escaped = rest.first else { return nil }
                        rest = rest.dropFirst()
                        switch escaped {
                        case "n": value.append("\n")
                        case "\\", "\"": value.append(escaped)
                        default: return nil
                        }
                    } else {
                        value.append(character)
                    }
                }
                guard rest.first == "\"" else { return nil }
                rest = rest.dropFirst()
                labels[String(key)] = value
                if rest.first == "," { rest = rest.dropFirst() }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " ", let value = Double(rest.dropFirst()) else { return nil }
        return Sample(String(name), labels, value)
    }

    // MARK: - The real parser

    /// The exposition `text` as Python's `prometheus_client.parser.text_string_to_metric_families` reads it, in a
    /// `python3` process: its family types (named as the parser names them, `monitor_polls` for
    /// `monitor_polls_total`) and samples. Nil — after printing why, loudly — when `python3` or `prometheus_client`
    /// is missing (`scripts/setup` installs it); a text the parser refuses is an error with its message.
    package static func parsedByPrometheusClient(_ text: String) async throws -> PrometheusText? {
        let script = """
            import json, sys
            try:
                from prometheus_client.parser import text_string_to_metric_families
            except ImportError as error:
                print(error, file=sys.stderr)
                sys.exit(3)
            types, samples = {}, []
            for family in text_string_to_metric_families(sys.stdin.read()):
                types[family.name] = family.type
                # repr: the shortest text that reads back as the same float (a JSON number may not, in Foundation).
                samples += [[s.name, s.labels, repr(s.value)] for s in family.samples]
            print(json.dumps({"types": types, "samples": samples}))
            """
        let python = ["/usr/bin/env", "python3", "-c", script]
        let (status, outputData, errorData) = try await ChildProcess.run(
            python[0], Array(python.dropFirst()), input: Array(text.utf8))
        let (output, errors) = (String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
        if status == 3 || status == 127 {
            print(
                """
                ********************************************************************************
                SKIPPED: the check of /metrics with a real Prometheus text parser: python3 with
                prometheus_client is not available (\(errors.trimmingCharacters(in: .whitespacesAndNewlines))).
                Run scripts/setup (pip install prometheus_client) to check it.
                ********************************************************************************
                """)
            return nil
        }
        guard status == 0 else { throw ParserRefused(message: errors) }
        let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
        let types = object["types"] as? [String: String] ?? [:]
        let samples = (object["samples"] as? [[Any]] ?? []).compactMap { sample -> Sample? in
            guard sample.count == 3, let name = sample[0] as? String, let labels = sample[1] as? [String: String],
                let value = (sample[2] as? String).flatMap(Double.init)
            else { return nil }
            return Sample(name, labels, value)
        }
        return PrometheusText(types: types, samples: samples)
    }

    /// The real parser refused the text.
    package struct ParserRefused: Error, CustomStringConvertible {
        /// What it said.
        package var message: String

        package var description: String { "prometheus_client refused the exposition: \(message)" }
    }
}
