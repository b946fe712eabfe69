import Testing

@testable import MonitorApp
@testable import MonitorCore
@testable import MonitorRules

/// `text` loaded with the built-in sources and notifiers, its diagnostics rendered.
private func rendered(_ text: String) -> String {
    ConfigLoader(environment: ["HOOK": "http://127.0.0.1:9/hook"]).load(text: text, path: "feeds.yaml")
        .renderedDiagnostics()
}

@Suite("where: in feeds.yaml, checked against the feed's fields, errors at the token's line and column")
struct RuleConfigTests {
    @Test("a valid rule on a feed and on a notifier loads; the feed's and the notifier's rules are read back")
    func valid() throws {
        let loaded = ConfigLoader(environment: ["HOOK": "http://127.0.0.1:9/hook"]).load(
            text: """
                feeds:
                  - name: fires
                    type: eonet
                    where: group == "wildfires" and near(34.05, -118.25, 500km)
                  - name: rx
                    type: github
                    repo: ReactiveX/RxSwift
                    where: group in ["PushEvent", "ReleaseEvent"] and not (actor ~ "\\\\[bot\\\\]$")
                notify:
                  - name: chat
                    type: webhook
                    url: ${HOOK}
                    where: magnitude_value >= 5 or title ~ "(?i)california" or actor == "x"

                """, path: "feeds.yaml")
        #expect(loaded.diagnostics == [])
        let config = try #require(loaded.config)
        #expect(
            config.feeds.map { $0.rule?.text } == [
                #"group == "wildfires" and near(34.05, -118.25, 500km)"#,
                #"group in ["PushEvent", "ReleaseEvent"] and not (actor ~ "\\[bot\\]$")"#,
            ])
        #expect(
            config.notifiers.first?.rule?.text == #"magnitude_value >= 5 or title ~ "(?i)california" or actor == "x""#)
    }

    @Test("plain: the column of the token")
    func plain() {
        #expect(
            rendered(
                """
                feeds:
                  - name: fires
                    type: eonet
                    where: group == "wildfires" and titel ~ "fire"

                """) == """
                    feeds.yaml:4:37: error: unknown field 'titel' (did you mean 'title'? the fields are: id, title, url, date, age, group, status, closed, magnitude, magnitude_value, magnitude_unit, position, lat, lon, geometry, description)
                        where: group == "wildfires" and titel ~ "fire"
                                                        ^
                    1 error in feeds.yaml

                    """)
    }

    @Test("double-quoted, with escapes: the column as written")
    func doubleQuoted() {
        #expect(
            rendered(
                #"""
                feeds:
                  - name: rx
                    type: github
                    repo: ReactiveX/RxSwift
                    where: "actor ~ \"\\\\[bot\" and number > \"5\""

                """#) == #"""
                    feeds.yaml:5:45: error: '>' compares numbers, dates and durations: 'number' compared with a text takes ==, !=, ~, !~ or in
                        where: "actor ~ \"\\\\[bot\" and number > \"5\""
                                                                ^
                    1 error in feeds.yaml

                    """#)
    }

    @Test("single-quoted, with '' for a quote: the column as written")
    func singleQuoted() {
        #expect(
            rendered(
                """
                feeds:
                  - name: rx
                    type: github
                    repo: ReactiveX/RxSwift
                    where: 'title ~ "it''s" and actr == "x"'

                """) == """
                    feeds.yaml:5:33: error: unknown field 'actr' (did you mean 'actor'? the fields are: id, title, url, date, age, group, actor, repo, ref, number, action, author, state, commits)
                        where: 'title ~ "it''s" and actr == "x"'
                                                    ^
                    1 error in feeds.yaml

                    """)
    }

    @Test("a literal block: the line and column inside it; a folded block: its first line")
    func blocks() {
        #expect(
            rendered(
                """
                feeds:
                  - name: fires
                    type: eonet
                    where: |
                      group == "wildfires"
                        and magnitude_value >= "5"

                """) == """
                    feeds.yaml:6:29: error: '>=' compares numbers, dates and durations: 'magnitude_value' compared with a text takes ==, !=, ~, !~ or in
                            and magnitude_value >= "5"
                                                ^
                    1 error in feeds.yaml

                    """)
        #expect(
            rendered(
                """
                feeds:
                  - name: fires
                    type: eonet
                    where: >
                      group == "wildfires"
                      and near(34, -118)

                """) == """
                    feeds.yaml:4:12: error: expected ',' in near(LATITUDE, LONGITUDE, DISTANCE), found ')'
                        where: >
                               ^
                    1 error in feeds.yaml

                    """)
    }

    @Test("a notifier's rule may name the details of the feeds it is told about, and only those")
    func notifier() {
        #expect(
            rendered(
                """
                feeds:
                  - name: fires
                    type: eonet
                  - name: rx
                    type: github
                    repo: ReactiveX/RxSwift
                notify:
                  - name: chat
                    type: webhook
                    url: ${HOOK}
                    feeds: [rx]
                    where: magnitude_value >= 5

                """) == """
                    feeds.yaml:12:12: error: unknown field 'magnitude_value' (the fields are: id, title, url, date, age, group, actor, repo, ref, number, action, author, state, commits)
                        where: magnitude_value >= 5
                               ^
                    1 error in feeds.yaml

                    """)
    }
}
