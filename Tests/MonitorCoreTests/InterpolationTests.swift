import Testing

@testable import MonitorCore
@testable import MonitorOptions

@Suite("${VAR} interpolation")
struct InterpolationTests {
    let environment = ["TOKEN": "abc", "EMPTY": "", "HOST": "example.org"]

    @Test(
        "expands",
        arguments: [
            ("plain text", "plain text"), ("${TOKEN}", "abc"), ("Bearer ${TOKEN}!", "Bearer abc!"),
            ("${MISSING:-fallback}", "fallback"), ("${EMPTY:-fallback}", "fallback"), ("${TOKEN:-fallback}", "abc"),
            ("${MISSING:-}", ""), ("${EMPTY}", ""), ("${TOKEN:?need a token}", "abc"),
            ("https://${HOST}/api/v3", "https://example.org/api/v3"), ("$${TOKEN}", "${TOKEN}"),
            ("cost: $5", "cost: $5"),
            ("${HOST}${TOKEN}", "example.orgabc"),
            // Braces inside a default pair up: the reference ends at its own '}'.
            ("${MISSING:-{a}b}!", "{a}b!"),
        ])
    func expands(text: String, expected: String) throws {
        #expect(try Interpolation.expand(text, environment: environment).get() == expected)
    }

    @Test(
        "fails with the variable named and the offset of its ${",
        arguments: [
            ("${MISSING}", "environment variable 'MISSING' is not set (write ${MISSING:-} to allow it to be unset)", 0),
            (
                "x ${MISSING:?set MISSING to your token}",
                "environment variable 'MISSING' is not set: set MISSING to your token", 2
            ),
            ("${EMPTY:?}", "environment variable 'EMPTY' is not set", 0),
            (
                "${MISSING:?set it as in {\"token\": …} (see docs)}",
                "environment variable 'MISSING' is not set: set it as in {\"token\": …} (see docs)", 0
            ),
            ("ab ${TOKEN", "'${' is not closed by '}'", 3),
            ("${1X}", "'${1X}' is not a variable reference; write ${NAME}, ${NAME:-default} or ${NAME:?message}", 0),
            ("é${}", "'${}' is not a variable reference; write ${NAME}, ${NAME:-default} or ${NAME:?message}", 1),
        ])
    func fails(text: String, message: String, offset: Int) {
        #expect(
            Interpolation.expand(text, environment: environment).mapError { $0 }
                == .failure(Interpolation.Failure(message: message, offset: offset)))
    }
}
