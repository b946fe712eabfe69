import EONETSource
import Foundation
import MonitorOptions
import Samples
import Synchronization
import TestSupport

@testable import MonitorCore

/// The EONET stand-in the poll tests talk to: it answers from `EONETFixtures`, can fail some categories, hold the
/// first event lists until enough are asked at once, answer 304 to requests carrying the ETag it sent, and counts
/// the requests in flight.
final class EONETServer: Sendable {
    private struct State {
        var events: [EONETFixtures.Event]
        var failing: Set<String> = []
        var inFlight = 0
        var maxInFlight = 0
    }

    /// The state, shared with the transport's handler.
    private final class Shared: Sendable {
        let mutex: Mutex<State>
        init(_ state: State) { mutex = Mutex(state) }
        func withLock<T: Sendable>(_ body: (inout State) -> T) -> T { mutex.withLock { body(&$0) } }
    }

    private let state: Shared
    /// The transport the engine sends through.
    let transport: StubTransport

    /// A server holding `events`, sending ETags when `etags`, whose first `together` event-list requests are
    /// answered only once that many are in flight (so that a bound on concurrency is reached for sure).
    init(events: [EONETFixtures.Event] = EONETFixtures.planet, together: Int = 1, etags: Bool = false) {
        let state = Shared(State(events: events))
        let rendezvous = Rendezvous(together)
        self.state = state
        transport = StubTransport { request in
            let (events, failing) = state.withLock { ($0.events, $0.failing) }
            let components = URLComponents(string: request.url)
            let category = components?.queryItems?.first { $0.name == "category" }?.value
            guard components?.path.hasSuffix("/events") == true else {
                return Self.answer(request, events: events, etags: etags)
            }
            state.withLock { state in
                state.inFlight += 1
                state.maxInFlight = max(state.maxInFlight, state.inFlight)
            }
            defer { state.withLock { $0.inFlight -= 1 } }
            await rendezvous.arrive()
            if let category, failing.contains(category) {
                return HTTPResponse(status: 500, body: Array(#"{"error":"database unavailable"}"#.utf8))
            }
            return Self.answer(request, events: events, etags: etags)
        }
    }

    private static func answer(_ request: HTTPRequest, events: [EONETFixtures.Event], etags: Bool) -> HTTPResponse {
        var response = EONETFixtures.response(to: request, events: events)
        guard etags, response.status == 200 else { return response }
        // The ETag is a digest of the body: a body that did not change is answered 304.
        var hasher = Hasher()
        hasher.combine(response.body)
        let etag = "\"\(String(UInt(bitPattern: hasher.finalize()), radix: 16))\""
        if request.headers["If-None-Match"] == etag { return HTTPResponse(status: 304, headers: ["ETag": etag]) }
        response.headers.set("ETag", etag)
        return response
    }

    /// The events it lists from now on.
    func serve(_ events: [EONETFixtures.Event]) { state.withLock { $0.events = events } }

    /// The categories whose event lists fail with 500 from now on.
    func fail(_ categories: Set<String>) { state.withLock { $0.failing = categories } }

    /// The most event-list requests that were in flight at once.
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }

    /// The URLs asked, in order.
    var urls: [String] { transport.requests.map(\.url) }
}

/// A feed named `planet` of type `eonet` against the fixtures' API root, with `options` over the defaults.
func planetFeed(_ options: [String: OptionValue] = [:]) -> FeedConfig {
    PollHarness.feed(
        EONETSource.self, name: "planet",
        options: options.merging(["api": .string(EONETFixtures.api)]) { own, _ in own }
    )
}

/// The events URL the source asks for one category.
func eventsURL(_ category: String, status: String = "all", days: Int = 360, limit: Int? = nil) -> String {
    "\(EONETFixtures.api)/events?category=\(category)&status=\(status)&days=\(days)"
        + (limit.map { "&limit=\($0)" } ?? "")
}

/// The category ids in the server's order.
let categoryIDs = EONETFixtures.categories.map(\.id)

extension PollReport {
    /// Each group's count by id.
    var counts: [String: Int] { Dictionary(uniqueKeysWithValues: groups.map { ($0.id, $0.count) }) }
}

extension FeedView {
    /// Each group's count by id.
    var counts: [String: Int] { Dictionary(uniqueKeysWithValues: groups.map { ($0.id, $0.count) }) }
}

/// A clock that always says `EONETFixtures.now` and does not wait: durations come out as 0ms.
let frozenClock = FrozenClock(at: EONETFixtures.now)
