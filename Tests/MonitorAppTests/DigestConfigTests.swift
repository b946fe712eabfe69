import Foundation
import Testing

@testable import MonitorApp
@testable import MonitorCore
@testable import MonitorText

@Suite("feeds.yaml's `digest:` on a notifier")
struct DigestConfigTests {
    static let feeds = """
        feeds:
          - name: rxswift
            type: exec
            command: [sh]
        notify:

        """

    /// The diagnostics of `text` as `LINE:COL: MESSAGE` strings, in order.
    static func problems(_ text: String) -> [String] {
        let loaded = ConfigLoader().load(text: text, path: "feeds.yaml")
        return DiagnosticRenderer(path: "", source: "").sorted(loaded.diagnostics).map { diagnostic in
            "\(diagnostic.location.map { "\($0)" } ?? "-"): \(diagnostic.message)"
        }
    }

    @Test("digest is a period of at least 1m, shorter than max_age; `on: [digest]` is not an event")
    func digest() throws {
        let loaded = ConfigLoader().load(
            text: Self.feeds + """
                  - name: chat
                    type: command
                    command: [./notify.sh]
                    digest: 1h
                  - name: now
                    type: command
                    command: [./notify.sh]
                """, path: "feeds.yaml")
        #expect(loaded.diagnostics.isEmpty)
        #expect(loaded.config?.notifiers.map(\.digestPeriod) == [.seconds(3600), nil])
        #expect(
            Self.problems(
                Self.feeds + """
                      - name: chat
                        type: command
                        command: [./notify.sh]
                        digest: 30s
                      - name: team
                        type: command
                        command: [./notify.sh]
                        digest: 2d
                        max_age: 1d
                      - name: ops
                        type: command
                        command: [./notify.sh]
                        on: [new, digest]
                    """) == [
                    "9:13: 'digest' must be at least 1m, not '30s'",
                    "13:13: 'max_age' (1d) must be longer than 'digest' (2d): a notification would be dropped "
                        + "before its digest is sent",
                    "18:15: unknown event 'digest' in 'on' (known events: new, failed, recovered, stale, gap)",
                ])
    }
}
