import LoopbackHTTP
import Testing

/// `RecordedRequest` and `TestResponse` on their own.
@Suite("RecordedRequest and TestResponse")
struct RecordedRequestTests {
    @Test("the path and the decoded query are split off the uri")
    func query() {
        let request = RecordedRequest(uri: "/search?q=a%20b%2Bc&x=1&x=2&flag&empty=&plus=a+b&bad=%zz&eq=a=b")
        #expect(request.path == "/search")
        #expect(
            request.query == [
                "q": "a b+c", "x": "2", "flag": "", "empty": "", "plus": "a+b", "bad": "%zz", "eq": "a=b",
            ])
        #expect(RecordedRequest(uri: "/plain").query.isEmpty)
        #expect(RecordedRequest(uri: "/plain").path == "/plain")
        #expect(RecordedRequest(uri: "/q?").path == "/q")
        #expect(RecordedRequest(uri: "/%C3%A9t%C3%A9?caf%C3%A9=cr%C3%A8me").query == ["café": "crème"])
    }

    @Test("header(_:) finds the first field of that name, ignoring case")
    func header() {
        let request = RecordedRequest(
            method: "POST", uri: "/", headers: [("Accept", "a"), ("X-Tag", "first"), ("x-tag", "second")])
        #expect(request.header("x-TAG") == "first")
        #expect(request.header("accept") == "a")
        #expect(request.header("Missing") == nil)
    }

    @Test("the response helpers set Content-Type once, before the given headers")
    func helpers() {
        let json = TestResponse.json("{}", status: 201, headers: [("ETag", "x")])
        #expect(json.status == 201)
        #expect(json.headers.map(\.name) == ["Content-Type", "ETag"])
        #expect(json.headers[0].value == "application/json")
        #expect(json.body == Array("{}".utf8))
        #expect(!json.hang)
        #expect(json.delay == .zero)

        let text = TestResponse.text("hi", headers: [("content-type", "text/html")])
        #expect(text.headers.map(\.value) == ["text/html"])
        #expect(TestResponse.text("hi").headers[0].value == "text/plain; charset=utf-8")

        #expect(TestResponse.hang.hang)
        #expect(TestResponse().status == 200)
    }
}
