import Foundation
import GitHubSource
import LoopbackHTTP
import MonitorCore
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A plain URLSession transport, enough to poll the fake API through a real HTTP server in these tests (the
/// app's AsyncHTTPClient transport is not a dependency of this test target).
private final class SessionTransport: HTTPTransport {
    private let session: URLSession

    init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let url = URL(string: request.url) else { throw TransportError.invalid("bad URL \(request.url)") }
        var outgoing = URLRequest(url: url)
        outgoing.httpMethod = request.method
        for field in request.headers { outgoing.addValue(field.value, forHTTPHeaderField: field.name) }
        let (data, response) = try await session.data(for: outgoing)
        guard let http = response as? HTTPURLResponse else { throw TransportError.invalid("not HTTP") }
        let headers = HTTPHeaders(
            http.allHeaderFields.compactMap { key, value in (key as? String).map { ($0, "\(value)") } })
        return HTTPResponse(status: http.statusCode, headers: headers, body: Array(data))
    }
}

@Suite("The github source over real HTTP, against the fake API served by TestHTTPServer", .timeLimit(.minutes(5)))
struct GitHubWireTests {
    @Test("a first sync through Link pages, then a 304")
    func wire() async throws {
        let api = GitHubFixtures.API(token: "ghp_wire")
        api.setEvents(
            GitHubFixtures.pushes(130, repo: "a/b", firstID: 7000, newest: Date(timeIntervalSince1970: 1_795_323_600)),
            of: "repos/a/b")
        try await withTestHTTPServer({ TestResponse(api.serve(HTTPRequest($0))) }) { server in
            let harness = try PollHarness()
            let feed = PollHarness.feed(
                GitHubSource.self, name: "ab",
                options: [
                    "repo": .string("a/b"), "api": .string(server.baseURL), "keep": .integer(150),
                    "token": .string("ghp_wire"),
                ])
            let transport = SessionTransport()
            let first = await harness.poll(GitHubSource.self, feed: feed, transport: transport).report
            #expect(first.status == .ok)
            #expect((first.requests, first.items, first.new) == (2, 130, 130))
            let second = await harness.poll(GitHubSource.self, feed: feed, transport: transport).report
            #expect(second.status == .notModified)
            #expect((second.requests, second.notModified, second.items, second.new) == (1, 1, 130, 0))
            let id = GitHubFixtures.API.id(of: "repos/a/b")
            #expect(
                server.requests.map(\.uri) == [
                    "/repos/a/b/events?per_page=100", "/repositories/\(id)/events?per_page=100&page=2",
                    "/repos/a/b/events?per_page=100",
                ])
            #expect(server.requests.allSatisfy { $0.header("Authorization") == "Bearer ghp_wire" })
            #expect(server.requests.last?.header("If-None-Match") == api.exchanges.first?.response.headers["ETag"])
        }
    }
}
