import ArgumentParser
import Dispatch
import Foundation
import LoopbackHTTP
import MonitorCore
import MonitorText
import Synchronization

/// `monitor-standin`: a local stand-in for the GitHub and EONET APIs on 127.0.0.1, for benchmarks and for
/// trying `monitor` without network access.
@main
struct StandInCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor-standin",
        abstract: "Serve GitHub- and EONET-shaped responses from generated data on 127.0.0.1.",
        discussion: """
            The first line printed is `listening on http://127.0.0.1:PORT`. Point an eonet feed's `api` at \
            http://127.0.0.1:PORT/api/v3 and a github feed's `api` at http://127.0.0.1:PORT. Any repository, \
            organisation or user exists and has events (made from its name and the seed) unless --github-missing \
            names it; GET /repos/O/R, /orgs/X and /users/X answer as GitHub does, rate limits \
            counted per token; a search finds standin/repo-0001… GET /_stats answers the counters as JSON, GET or POST /_reset resets them, \
            GET /_counts tells how many events each EONET category has. SIGINT or SIGTERM stops it.
            """)

    @Option(help: "The port on 127.0.0.1; 0 picks a free one.")
    var port = 0

    @Option(help: "How long every request waits before it is answered, e.g. 200ms.", transform: duration)
    var latency: Duration = .zero

    @Option(help: "How many EONET events (spread over the 13 categories; one in ten is in two).")
    var eonetEvents = 200

    @Option(help: "How many repositories a GitHub search finds (standin/repo-0001…).")
    var githubRepos = 10

    @Option(help: "How many events each GitHub repository, organisation or user has at the start (300 are served).")
    var githubEvents = 30

    @Option(
        help: "Give each GitHub feed a new event this often (each at its own moment), e.g. 30s.", transform: duration)
    var githubNewEvery: Duration?

    @Option(help: "The seed of the generated data.")
    var seed: UInt64 = 1

    @Option(help: "The X-Poll-Interval of GitHub responses, in seconds.")
    var pollInterval = 60

    @Option(help: "GitHub's primary rate limit per hour (a 304 spends none).")
    var rateLimit = 5_000

    @Option(help: "GitHub's search rate limit per minute.")
    var searchRateLimit = 30

    @Option(
        help: ArgumentHelp(
            "A GitHub token it accepts, with the classic scopes it tells in X-OAuth-Scopes (TOKEN alone: a fine-grained "
                + "token, telling none). Once given, any other token is refused 401 Bad credentials. Repeatable.",
            valueName: "token[:scope,…]"))
    var githubToken: [String] = []

    @Option(
        help: ArgumentHelp(
            "A GitHub repository (owner/name), organisation or user that does not exist (404), or a search query "
                + "that finds nothing. Repeatable."))
    var githubMissing: [String] = []

    @Option(
        help: ArgumentHelp(
            "A private GitHub repository (owner/name): 404 unless asked with a token with the repo scope or a "
                + "fine-grained one. Repeatable."))
    var githubPrivate: [String] = []

    @Flag(help: "Strong GitHub ETags (\"…\") instead of weak ones (W/\"…\").")
    var strongEtags = false

    @Option(help: "Stop by itself after this long, e.g. 30m (default: only on SIGINT or SIGTERM).", transform: duration)
    var lifetime: Duration?

    static func duration(_ text: String) throws -> Duration {
        if text == "0" { return .zero }
        guard let duration = DurationFormat.parse(text) else {
            throw ValidationError("'\(text)' is not a duration like 200ms, 30s or 5m")
        }
        return duration
    }

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port is 0…65535") }
        guard eonetEvents >= 0, githubRepos >= 0, githubEvents >= 0 else {
            throw ValidationError("counts are not negative")
        }
        guard pollInterval > 0, rateLimit > 0, searchRateLimit > 0 else {
            throw ValidationError("--poll-interval and the rate limits are positive")
        }
    }

    func run() async throws {
        let standIn = Mutex<StandIn?>(nil)
        let server = try await TestHTTPServer.start(port: port) { request in
            guard let current = standIn.withLock({ $0 }) else { return .text("starting", status: 503) }
            return await current.respond(to: request)
        }
        let root = server.baseURL
        let started = Date()
        let today = Date(timeIntervalSince1970: (started.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
        let eonet = EONETData(count: eonetEvents, seed: seed, now: today, api: "\(root)/api/v3")
        let width = max(4, String(githubRepos).count)
        let repositories = (0..<githubRepos).map { index in
            "standin/repo-" + String(repeating: "0", count: max(0, width - String(index + 1).count)) + String(index + 1)
        }
        let github = GitHubData(
            seed: seed, eventsPerFeed: githubEvents, repositories: repositories, start: started,
            newEvery: githubNewEvery, root: root)
        var behaviour = StandIn.Behaviour()
        behaviour.latency = latency
        behaviour.strongETags = strongEtags
        behaviour.pollInterval = pollInterval
        behaviour.rateLimit = rateLimit
        behaviour.searchRateLimit = searchRateLimit
        for token in githubToken {
            let parts = token.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let scopes = parts.count == 2 ? parts[1].split(separator: ",").map { String($0) } : nil
            behaviour.tokens[String(parts[0])] = .some(scopes)
        }
        behaviour.missing = Set(githubMissing.map { $0.lowercased() })
        behaviour.privateRepositories = Set(githubPrivate.map { $0.lowercased() })
        standIn.withLock { $0 = StandIn(eonet: eonet, github: github, behaviour: behaviour) }

        // Written straight to the file descriptor, so that a script reading the first line gets it at once.
        FileHandle.standardOutput.write(Data("listening on \(root)\n".utf8))
        FileHandle.standardError.write(
            Data("monitor-standin: \(eonetEvents) EONET events, \(githubRepos) searchable repositories\n".utf8))

        await Self.waitForStop(lifetime: lifetime)
        try await server.shutdown()
    }

    /// Returns on SIGINT or SIGTERM, or once `lifetime` has passed.
    private static func waitForStop(lifetime: Duration?) async {
        let (stops, continuation) = AsyncStream<Void>.makeStream()
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            return source
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var iterator = stops.makeAsyncIterator()
                _ = await iterator.next()
            }
            if let lifetime {
                group.addTask { try? await Task.sleep(for: lifetime) }
            }
            await group.next()
            group.cancelAll()
            continuation.finish()
        }
        sources.forEach { $0.cancel() }
    }
}
