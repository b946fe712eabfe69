import MonitorCore
import MonitorOptions
import TestSupport

@testable import ExecSource

// MARK: - Examples

extension ExecSource {
    /// Programs (`/bin/sh` scripts) and what the source must make of their lines: items with the cursor they send,
    /// then `unchanged` for that cursor (the stored items stay); with `retention: replace`, a failed group that
    /// keeps its stored items while the other's are replaced. They send no request: their answers are empty.
    static var examples: [SourceExample] {
        let fiji = #"{"item":{"id":"q2","title":"M 6.1 - Fiji","date":"2025-09-21T18:00:00Z","groups":["m6"]}}"#
        let tonga = #"{"item":{"id":"q1","title":"M 5.2 - Tonga","date":"2025-09-21T17:00:00Z","groups":["m5"]}}"#
        let kermadec =
            #"{"item":{"id":"q3","title":"M 5.0 - Kermadec","date":"2025-09-22T06:00:00Z","groups":["m5"]}}"#
        let failure = #"{"failure":{"what":"m6","message":"HTTP 503","group":"m6"}}"#
        /// A program that prints `first` without a cursor, then `next` once it sent `{"cursor":"1"}`.
        func program(_ first: [String], then next: [String]) -> OptionValue {
            func echo(_ lines: [String]) -> String { lines.map { "echo '\($0)'" }.joined(separator: "; ") }
            let script =
                #"if [ -z "$MONITOR_CURSOR" ]; then "# + echo(first + [#"{"cursor":"1"}"#])
                + "; else " + echo(next) + "; fi"
            return .list(["/bin/sh", "-c", script])
        }
        /// The first run of each program: the two quakes, both new. No request is sent, so no answer is recorded.
        let first = SourceExample.Poll(
            answers: [:], expect: .init(status: .ok, items: ["q2", "q1"], groups: ["m6": 1, "m5": 1], new: 2))
        return [
            SourceExample(
                "items and a cursor, then unchanged since that cursor: the stored items stay",
                options: ["command": program([fiji, tonga], then: [#"{"unchanged":true}"#])],
                polls: [
                    first,
                    SourceExample.Poll(
                        answers: [:],
                        expect: .init(status: .notModified, items: ["q2", "q1"], groups: ["m6": 1, "m5": 1], new: 0)),
                ]),
            SourceExample(
                "replace: a failed group keeps its stored items, the other's are replaced",
                options: [
                    "command": program([fiji, tonga], then: [failure, kermadec]), "retention": .string("replace"),
                ],
                polls: [
                    first,
                    SourceExample.Poll(
                        answers: [:],
                        expect: .init(status: .partial, items: ["q3", "q2"], groups: ["m6": 1, "m5": 1], new: 1)),
                ]),
        ]
    }
}
