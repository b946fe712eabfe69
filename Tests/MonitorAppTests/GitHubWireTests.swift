import Foundation
import GitHubSource
import LoopbackHTTP
import MonitorSQLite
import TestSupport
import Testing

@testable import MonitorCore

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
            let harness = PollHarness()
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

    /// The 64-bit FNV-1a fingerprint versions before SHA-256 stored for a credential.
    static func legacyFingerprint(_ credential: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "monitor-credential:\(credential)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    @Test("validators stored under the old FNV-1a fingerprint: one unconditional request, no item lost, then deleted")
    func legacyFingerprint() async throws {
        let token = "ghp_wire"
        let api = GitHubFixtures.API(token: token)
        api.setEvents(
            GitHubFixtures.pushes(30, repo: "a/b", firstID: 7000, newest: Date(timeIntervalSince1970: 1_795_323_600)),
            of: "repos/a/b")
        try await withTestHTTPServer({ TestResponse(api.serve(HTTPRequest($0))) }) { server in
            let directory = try TemporaryDirectory()
            let harness = PollHarness(store: try SQLiteStateStore(directory: directory.url), keeping: directory)
            let feed = PollHarness.feed(
                GitHubSource.self, name: "ab",
                options: [
                    "repo": .string("a/b"), "api": .string(server.baseURL), "keep": .integer(150),
                    "token": .string(token),
                ])
            let transport = SessionTransport()
            let first = await harness.poll(GitHubSource.self, feed: feed, transport: transport).report
            #expect((first.status, first.requests, first.items, first.new) == (.ok, 1, 30, 30))
            let url = "\(server.baseURL)/repos/a/b/events?per_page=100"
            let current = ValidatorKey(
                url: url, credential: "baf9dad058bd3c949cde5a5d39673dc90383d653ee400dff8a71cdab92899430")
            let stored = try await harness.store.snapshot(feed: "ab")
            let validators = try #require(stored.validators[current])
            let etag = try #require(validators.etag)
            #expect(stored.validators.count == 1)

            // The state as an earlier version left it: the same validators under the FNV-1a fingerprint.
            let legacy = ValidatorKey(url: url, credential: Self.legacyFingerprint(token))
            #expect(legacy.credential == "984ae34fbdebbb06")
            try await harness.store.commit(
                PollCommit(
                    record: try #require(stored.record), items: nil, firstSeen: Date(), groups: nil,
                    validators: [current: Validators(etag: nil, lastModified: nil), legacy: validators],
                    values: [:]),
                feed: "ab")
            #expect(
                try await harness.store.snapshot(feed: "ab").validators.keys.map(\.credential) == [legacy.credential])

            // The old key is not used: the request is unconditional, answered whole, and no item is lost or new.
            let second = await harness.poll(GitHubSource.self, feed: feed, transport: transport).report
            #expect(
                (second.status, second.requests, second.notModified, second.items, second.new) == (.ok, 1, 0, 30, 0))
            #expect(server.requests.count == 2)
            #expect(server.requests.last?.header("If-None-Match") == nil)
            let after = try await harness.store.snapshot(feed: "ab")
            #expect(after.items.count == 30)
            #expect(after.items.map(\.id) == stored.items.map(\.id))
            // The old row is gone; the validators are under the SHA-256 fingerprint again.
            #expect(after.validators == [current: validators])
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            where name.hasPrefix("state.sqlite") {
                let bytes = try Data(contentsOf: directory.url.appendingPathComponent(name))
                #expect(bytes.range(of: Data(token.utf8)) == nil, "the token is in \(name)")
            }

            // And the next poll is conditional again.
            let third = await harness.poll(GitHubSource.self, feed: feed, transport: transport).report
            #expect((third.status, third.requests, third.notModified) == (.notModified, 1, 1))
            #expect(server.requests.last?.header("If-None-Match") == etag)
        }
    }
}
