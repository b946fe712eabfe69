import MonitorCore
import Testing

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

    @Test("a pattern longer than the limit is refused")
    func tooLong() {
        #expect(throws: RuleError("the regular expression is too long (1001 characters, at most 1000)", at: 0)) {
            try RulePattern(String(repeating: "a", count: 1001))
        }
        #expect(throws: Never.self) { try RulePattern(String(repeating: "a", count: 1000)) }
    }
}
