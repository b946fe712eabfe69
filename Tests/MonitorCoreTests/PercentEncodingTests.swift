import Testing

@testable import MonitorCore

@Suite("Percent-encoding of query values and paths")
struct PercentEncodingTests {
    @Test("everything but the unreserved characters is encoded, byte by byte in UTF-8, in upper-case hex")
    func queryValue() {
        #expect(
            "language:swift stars:>1000 topic:c++ é/x_y-z.~".percentEncoded()
                == "language%3Aswift%20stars%3A%3E1000%20topic%3Ac%2B%2B%20%C3%A9%2Fx_y-z.~")
        #expect("".percentEncoded() == "")
        #expect("a&b=c#d?%".percentEncoded() == "a%26b%3Dc%23d%3F%25")
        #expect("\u{0}\n😀".percentEncoded() == "%00%0A%F0%9F%98%80")
    }

    @Test("a path keeps its slashes when asked, and only the ASCII characters asked for")
    func path() {
        #expect("feature/x y".percentEncoded(keeping: "/") == "feature/x%20y")
        #expect("feature/x y".percentEncoded() == "feature%2Fx%20y")
        #expect("v1.0/é".percentEncoded(keeping: "/é") == "v1.0/%C3%A9")
    }
}
