import MonitorText
import Testing

@testable import MonitorCore

@Suite("Diagnostics rendered like a compiler's")
struct DiagnosticRendererTests {
    @Test("sorted by position, each with its source line and a caret, then a count")
    func renders() {
        let source = "feeds:\n  - name: a\n\tkep: 1\n"
        let renderer = DiagnosticRenderer(path: "feeds.yaml", source: source)
        let output = renderer.render([
            .error("second", at: SourceLocation(line: 3, column: 2)),
            .error("first", at: SourceLocation(line: 2, column: 11)),
            .error("whole file", at: nil),
        ])
        #expect(
            output == """
                feeds.yaml: error: whole file
                feeds.yaml:2:11: error: first
                  - name: a
                          ^
                feeds.yaml:3:2: error: second
                \tkep: 1
                \t^
                3 errors in feeds.yaml

                """)
    }

    @Test("a location past the end of the file prints no source line")
    func pastEnd() {
        let output = DiagnosticRenderer(path: "f.yaml", source: "a: 1").render([
            .error("oops", at: SourceLocation(line: 9, column: 1))
        ])
        #expect(output == "f.yaml:9:1: error: oops\n1 error in f.yaml\n")
    }

    @Test("control characters in the quoted line are shown as U+FFFD, one for one")
    func sanitizesSource() {
        let output = DiagnosticRenderer(path: "f", source: "a: \u{1B}[2Jx").render([
            .error("bad", at: SourceLocation(line: 1, column: 6))
        ])
        #expect(output == "f:1:6: error: bad\na: \u{FFFD}[2Jx\n     ^\n1 error in f\n")
    }

    @Test("colours only when asked")
    func colours() {
        let output = DiagnosticRenderer(path: "f", source: "a", colors: true).render([
            .error("bad", at: SourceLocation(line: 1, column: 1))
        ])
        #expect(output == "f:1:1: \u{1B}[1;31merror:\u{1B}[0m bad\na\n\u{1B}[1;32m^\u{1B}[0m\n1 error in f\n")
    }
}
