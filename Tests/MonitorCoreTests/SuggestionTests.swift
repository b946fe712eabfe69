import Testing

@testable import MonitorCore
@testable import MonitorText

@Suite("Did-you-mean suggestions")
struct SuggestionTests {
    let keys = ["repo", "org", "user", "search", "top", "search_every", "token", "api", "keep", "types", "interval"]

    @Test(
        "suggests the likely key",
        arguments: [
            ("kep", "keep"), ("kepp", "keep"), ("Keep", "keep"), ("intervall", "interval"), ("tpyes", "types"),
            ("serach", "search"), ("toke", "token"), ("search-every", "search_every"),
        ])
    func suggests(typo: String, expected: String) {
        #expect(Suggestion.closest(to: typo, in: keys) == expected)
    }

    @Test("stays quiet when nothing is close", arguments: ["colour", "x", "bananas", "concurrency"])
    func quiet(word: String) {
        #expect(Suggestion.closest(to: word, in: keys) == nil)
    }

    @Test("edit distance counts a swap as one")
    func distance() {
        #expect(Suggestion.editDistance("abcd", "abdc") == 1)
        #expect(Suggestion.editDistance("", "abc") == 3)
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
    }
}
