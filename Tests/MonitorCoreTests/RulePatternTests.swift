import Testing

@testable import MonitorCore
@testable import MonitorRules

@Suite("Rules: regular expressions matched without backtracking")
struct RulePatternTests {
    @Test(
        "exact results",
        arguments: [
            ("fire", "Wildfire", true),
            ("^fire", "Wildfire", false),
            ("fire$", "Wildfire", true),
            ("^$", "", true),
            ("^a$", "a\n", false),
            ("a.c", "abc", true),
            ("a.c", "a\nc", false),
            ("colou?r", "color", true),
            ("colou?r", "colour", true),
            ("colou?r", "colouur", false),
            ("ab+c", "ac", false),
            ("ab+c", "abbbc", true),
            ("ab*c", "ac", true),
            ("^(ab|cd)+$", "abcdab", true),
            ("^(ab|cd)+$", "abcda", false),
            ("^(?:x|y){2,3}$", "x", false),
            ("^(?:x|y){2,3}$", "xy", true),
            ("^(?:x|y){2,3}$", "xyx", true),
            ("^(?:x|y){2,3}$", "xyxy", false),
            ("^a{2}$", "aa", true),
            ("^a{2,}$", "aaaaa", true),
            ("^a{2,}$", "a", false),
            ("a{,2}", "a{,2}", true),
            ("[0-9]+ acres", "5200 acres", true),
            ("[^a-z]", "abc", false),
            ("[^a-z]", "abC", true),
            (#"\d+\.\d+"#, "v6.9", true),
            (#"\w+\s\w+"#, "hello world", true),
            (#"^\S+$"#, "hello world", false),
            (#"\[bot\]$"#, "dependabot[bot]", true),
            (#"[\]x]"#, "]", true),
            ("(?i)CALIFORNIA", "Northern california", true),
            ("(?i)[a-c]+$", "xABC", true),
            ("(?i)é", "CAFÉ", true),
            ("Ünï", "Ünïcode", true),
            ("a|", "zzz", true),
            ("Caf\u{E9}", "Cafe\u{301}", true),
            ("Cafe\u{301}", "Caf\u{E9}", true),
            ("^Caf.$", "Cafe\u{301}", true),
            ("(?i)CAFE\u{301}", "caf\u{E9}", true),
        ])
    func results(pattern: String, text: String, expected: Bool) throws {
        #expect(try RulePattern(pattern).matches(text) == expected)
    }

    @Test("patterns that make a backtracking engine take exponential time answer at once")
    func pathological() throws {
        let text = String(repeating: "a", count: 5000)
        #expect(try RulePattern("(a*)*b").matches(text) == false)
        #expect(try RulePattern("^(a|aa)+$").matches(text + "b") == false)
        #expect(try RulePattern("(a|a)*c").matches(text) == false)
        #expect(try RulePattern("^(a+)+$").matches(text) == true)
    }

    /// A class of 988 members, each a character of its own (CJK ideographs from U+4E00, which NFC leaves as they are):
    /// the most a 1,000-character pattern holds with a count after it.
    static let wideClass = "[" + String(String.UnicodeScalarView((0..<988).map { Unicode.Scalar(0x4E00 + $0)! })) + "]"

    @Test("the step budget counts each member of a class: 988 members 10 times fit, 11 or 1,000 times do not")
    func classMembersCounted() throws {
        #expect(throws: Never.self) { try RulePattern(Self.wideClass + "{10}z") }
        for count in [11, 1000] {
            #expect(
                throws: RuleError(
                    "the regular expression is too large: more than 10000 steps once its repetitions are written out "
                        + "and each member of a class is counted", at: 0)
            ) { try RulePattern(Self.wideClass + "{\(count)}z") }
        }
    }

    @Test("a match that would take more than 2,000,000 steps gives up: nil, too costly")
    func tooCostly() throws {
        // At each character, the one thread tries the class's 988 members: 2,024 of them take 1,999,712 steps.
        let wide = try RulePattern(Self.wideClass + "{2}z")
        #expect(wide.matches(String(repeating: "a", count: 2_024)) == false)
        #expect(wide.matches(String(repeating: "a", count: 2_025)) == nil)
        #expect(wide.matches(String(repeating: "a", count: 20_000)) == nil)
        // One more thread at each character: k characters take k(k+1)/2 steps and more.
        let nine = try RulePattern("(?:.{1000}){9}z")
        #expect(nine.matches(String(repeating: "a", count: 300_000)) == nil)
        #expect(nine.matches(String(repeating: "a", count: 1_000)) == false)
        #expect(nine.matches("z") == false)
    }

    @Test("a match in a cancelled task stops at once: nil")
    func cancelled() async throws {
        let pattern = try RulePattern("z")
        let task = Task { () -> Bool? in
            while !Task.isCancelled { await Task.yield() }
            return pattern.matches(String(repeating: "a", count: 10))
        }
        task.cancel()
        #expect(await task.value == nil)
        #expect(pattern.matches(String(repeating: "a", count: 10)) == false)
    }

    @Test("a pattern longer than the limit is refused")
    func tooLong() {
        #expect(throws: RuleError("the regular expression is too long (1001 characters, at most 1000)", at: 0)) {
            try RulePattern(String(repeating: "a", count: 1001))
        }
        #expect(throws: Never.self) { try RulePattern(String(repeating: "a", count: 1000)) }
    }
}
