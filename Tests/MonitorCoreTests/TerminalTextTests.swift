import MonitorText
import Testing

@testable import MonitorCore

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
            ("charset \u{1B}(Bx", "charset x"), ("clipboard \u{1B}]52;c;cm0gLXJmIH4=\u{07}x", "clipboard x"),
            ("clipboard \u{1B}]52;c;cm0gLXJmIH4=\u{1B}\\x", "clipboard x"),
            ("title \u{1B}]2;pwned\u{1B}\\x", "title x"),
            ("c1 osc \u{9D}0;pwned\u{9C}x", "c1 osc x"), ("c1 osc \u{9D}52;c;eA==\u{07}x", "c1 osc x"),
            ("cursor \u{1B}[10;20Hx\u{1B}[?25l", "cursor x"),
        ])
    func sanitizes(input: String, expected: String) {
        #expect(TerminalText.sanitized(input) == expected)
    }

    @Test("keeps newlines when asked")
    func keepsNewlines() {
        #expect(TerminalText.sanitized("a\nb\u{1B}[1m", keepNewlines: true) == "a\nb")
    }

    @Test(
        "measures text in terminal cells: wide characters and emoji 2, combining marks 0",
        arguments: [
            ("plain", 5), ("日本語", 6), ("🔥 fire", 7), ("e\u{301}te\u{301}", 3), ("\u{301}", 0), ("👍🏽", 2),
            ("🇫🇷", 2), ("✓ done", 6), ("ｆｕｌｌ", 8), ("한국", 4), ("a\u{200D}b", 2),
            ("\u{1B}[1;31mred\u{1B}[22;39m ✓", 5),
        ])
    func width(text: String, cells: Int) {
        #expect(TerminalText.width(text) == cells)
    }

    @Test(
        "cuts text at a number of cells with …, never splitting a wide character or a letter from its marks",
        arguments: [
            ("short", 10, "short"), ("exactly 10", 10, "exactly 10"), ("one too long", 11, "one too lo…"),
            ("日本語のタイトル", 7, "日本語…"), ("a日本語", 4, "a日…"), ("🔥🔥🔥🔥", 6, "🔥🔥…"),
            ("cafe\u{301} au lait", 6, "cafe\u{301} …"), ("ab", 1, "…"), ("a", 1, "a"), ("ab", 0, ""),
            ("\u{1B}[7m> a selected row\u{1B}[27m", 6, "\u{1B}[7m> a s…\u{1B}[0m"),
            ("\u{1B}[1;31m*\u{1B}[22;39m fires", 7, "\u{1B}[1;31m*\u{1B}[22;39m fires"),
        ])
    func cut(text: String, width: Int, expected: String) {
        #expect(TerminalText.cut(text, to: width) == expected)
        #expect(TerminalText.width(TerminalText.cut(text, to: width)) <= width)
    }

    @Test("a gap's message keeps 500 characters, and 2,000 scalars of one made of endless combining marks")
    func cappedMessage() {
        let long = PollGap(message: "\u{1B}[2J" + String(repeating: "ab", count: 1_000))
        #expect(long.message == String(String(repeating: "ab", count: 250).dropLast()) + "…")
        let zalgo = PollGap(message: "z" + String(repeating: "\u{301}", count: 1_000_000) + " done")
        #expect(zalgo.message == "z" + String(repeating: "\u{301}", count: 1_999) + "…")
    }

    @Test("wraps text at spaces by cells; a word longer than a line is broken where the line ends")
    func wrapped() {
        #expect(TerminalText.wrapped("the quick brown fox", width: 10) == ["the quick", "brown fox"])
        #expect(TerminalText.wrapped("日本語の文章 です", width: 8) == ["日本語の", "文章", "です"])
        #expect(
            TerminalText.wrapped("https://example.org/a/long/path", width: 12) == [
                "https://exam", "ple.org/a/lo", "ng/path",
            ])
        #expect(TerminalText.wrapped("", width: 5) == [""])
    }
}
