import AsyncHTTPClient
import Testing

@testable import MonitorApp
@testable import MonitorCore

@Suite("AsyncHTTPClient's errors become sentences that never carry a request header's value")
struct TransportMessageTests {
    @Test(
        "errors with a payload are told apart by their code alone",
        arguments: [
            (
                HTTPClientError.invalidHeaderFieldValues(["Bearer ghp_first\nghp_second"]),
                TransportError.invalid("a request header value contains a character HTTP does not allow (not shown)")
            ),
            (
                HTTPClientError.invalidHeaderFieldNames(["X-Bad\nName"]),
                TransportError.invalid("a request header name contains a character HTTP does not allow")
            ),
            (HTTPClientError.unsupportedScheme("ftp"), TransportError.invalid("the URL's scheme is not http or https")),
            (
                HTTPClientError.redirectCycleDetected,
                TransportError.connection("the server's redirects lead in a circle")
            ),
            (
                HTTPClientError.redirectLimitReached,
                TransportError.connection("the server redirected more than 5 times")
            ),
            (HTTPClientError.deadlineExceeded, TransportError.timeout),
            (
                HTTPClientError.writeAfterRequestSent,
                TransportError.connection("the HTTP client failed (write after request sent)")
            ),
        ])
    func translated(_ error: HTTPClientError, _ expected: TransportError) {
        #expect(HTTPClientTransport.translate(error) == expected)
    }

    @Test("a header field HTTP cannot carry is named, never shown")
    func problems() {
        #expect(HTTPClientTransport.problem(name: "Authorization", value: "Bearer ghp_x") == nil)
        #expect(
            HTTPClientTransport.problem(name: "Authorization", value: "Bearer ghp_a\rghp_b")
                == "the value of the request header 'Authorization' contains a control character (not shown)")
        #expect(
            HTTPClientTransport.problem(name: "Authorization", value: "Bearer \u{0}")
                == "the value of the request header 'Authorization' contains a control character (not shown)")
        #expect(HTTPClientTransport.problem(name: "X-Tab", value: "a\tb") == nil)
        #expect(
            HTTPClientTransport.problem(name: "Bad Name", value: "v")
                == "the request header name 'Bad Name' is not a valid HTTP header name")
    }

    /// An error the transport knows only by its text.
    private struct Unnamed: Error, CustomStringConvertible {
        var description: String
    }

    @Test("any other error's text shows none of the request's header values, nor its URL after the host")
    func redacted() {
        let request = MonitorCore.HTTPRequest(
            url: "https://hooks.example.com/hooks/T1/s3cr3t-path?key=q5ecr3t",
            headers: ["Authorization": "Bearer ghp_first\nghp_second", "Accept": "*/*"], timeout: .seconds(1),
            maxBody: 1)
        let describe = { (text: String) in HTTPClientTransport.describe(Unnamed(description: text), request: request) }
        #expect(
            describe(#"failed(["Bearer ghp_first\nghp_second"], ghp_second, */*)"#)
                == #"connection failed (failed(["…"], …, …))"#)
        // A token without its `Bearer`, the path without its query, a query value.
        #expect(
            describe("bad value ghp_first at /hooks/T1/s3cr3t-path q5ecr3t")
                == "connection failed (bad value … at … …)")
    }
}
