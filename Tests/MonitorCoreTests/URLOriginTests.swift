import Foundation
import Testing

@testable import MonitorCore

@Suite("URL origins: scheme, host and port, a plain host read without decoding")
struct URLOriginTests {
    @Test(
        "each part exactly; the port only when written, the effective one by the scheme",
        arguments: [
            ("https://API.GitHub.com/repos/a/b", "https", "api.github.com", nil, 443),
            ("HTTP://127.0.0.1:8080/x?y#z", "http", "127.0.0.1", 8080, 8080),
            ("http://user:secret@host.example:99/", "http", "host.example", 99, 99),
            ("http://[::1]:9/a", "http", "[::1]", 9, 9),
            ("ftp://files.example/", "ftp", "files.example", nil, 0),
            ("https://xn--bcher-kva.example/", "https", "bücher.example", nil, 443),
            ("https://bücher.example/", "https", "bücher.example", nil, 443),
            ("http://b%C3%BCcher.example/", "http", "bücher.example", nil, 80),
        ] as [(String, String, String, Int?, Int)])
    func parts(url: String, scheme: String, host: String, port: Int?, effective: Int) throws {
        let origin = try #require(URLOrigin(url))
        #expect(origin.scheme == scheme)
        #expect(origin.host == host)
        #expect(origin.port == port)
        #expect(origin.effectivePort == effective)
    }

    @Test(
        "the host is the one URLComponents.host decodes, lowercased, for plain, bracketed, escaped and IDNA hosts",
        arguments: [
            "https://api.github.com", "https://EONET.gsfc.NASA.gov/api/v3/events", "http://localhost:1/",
            "http://[fe80::1%25eth0]:80/", "http://[2001:DB8::1]/", "https://xn--bcher-kva.example/",
            "https://bücher.example/", "http://b%C3%BCcher.example/", "http://a%2Eb.example/", "http://EXAMPLE.com./",
        ])
    func sameHostAsDecoded(url: String) throws {
        let components = try #require(URLComponents(string: url))
        #expect(URLOrigin(url)?.host == components.host?.lowercased())
    }

    @Test(
        "no origin without a scheme or a host, or from what is not a URL",
        arguments: ["not a url", "/relative/path", "mailto:x@y.example", ""])
    func none(url: String) {
        #expect(URLOrigin(url) == nil)
    }

    @Test("two URLs are of one origin when scheme, host and written port agree, whatever the case and the path")
    func equality() {
        #expect(URLOrigin("https://API.github.com/a") == URLOrigin("https://api.GITHUB.com/b?c"))
        #expect(URLOrigin("https://api.github.com") != URLOrigin("http://api.github.com"))
        #expect(URLOrigin("https://api.github.com") != URLOrigin("https://api.github.com:443"))
        #expect(URLOrigin("https://api.github.com") != URLOrigin("https://api.github.com.evil.example"))
        #expect(URLOrigin("https://api.github.com") != URLOrigin("https://api.github.com@evil.example"))
    }

    @Test("a metrics label: one pair of brackets around an IPv6 host; a webhook cut to its scheme and host")
    func metricsLabels() {
        #expect(MonitorMetrics.origin(of: "http://[::1]:9464/metrics") == "http://[::1]:9464")
        #expect(MonitorMetrics.origin(of: "https://API.example.com/x") == "https://api.example.com:443")
        #expect(MonitorMetrics.origin(of: "not a url") == "unknown")
        #expect(MonitorMetrics.notifier("https://user:secret@hooks.example/T0/B1/xyz") == "https://hooks.example")
        #expect(MonitorMetrics.notifier("team-chat") == "team-chat")
    }
}
