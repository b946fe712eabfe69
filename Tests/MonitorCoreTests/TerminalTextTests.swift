import MonitorCore
import Testing

@Suite("Text from the network made safe for a terminal")
struct TerminalTextTests {
    @Test(
        "removes control characters and escape sequences",
        arguments: [
            ("plain", "plain"), ("red \u{1B}[31mtext\u{1B}[0m", "red text"), ("clear\u{1B}[2J\u{1B}[H!", "clear!"),
            ("title\u{1B}]0;pwned\u{07}ok", "titleok"), ("osc \u{1B}]8;;http://x\u{1B}\\link", "osc link"),
            ("bell\u{07}", "bell"), ("a\tb", "a b"), ("line\nbreak", "line break"), ("cr\rlf", "cr lf"),
            ("c1 \u{9B}31mcsi", "c1 csi"), ("bidi \u{202E}evil", "bidi evil"), ("del\u{7F}", "del"),
            ("日本語 ✓", "日本語 ✓"), ("esc at end \u{1B}", "esc at end "), ("keypad \u{1B}=x", "keypad x"),
            ("charset \u{1B}(Bx", "charset x"),
        ])
    func sanitizes(input: String, expected: String) {
        #expect(TerminalText.sanitized(input) == expected)
    }

    @Test("keeps newlines when asked")
    func keepsNewlines() {
        #expect(TerminalText.sanitized("a\nb\u{1B}[1m", keepNewlines: true) == "a\nb")
    }
}
