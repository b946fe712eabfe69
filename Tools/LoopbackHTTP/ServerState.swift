import NIOCore

/// The mutable state of a `TestHTTPServer`, always used under its lock.
struct ServerState: Sendable {
    /// Every request received so far, in arrival order.
    var requests: [RecordedRequest] = []
    /// Requests whose head has been received and whose response has not been fully handed to the connection.
    var inFlight = 0
    /// The most requests in flight at once since the start or the last reset.
    var maxInFlight = 0
    /// Every open connection, so that shutdown can close them all.
    var connections: [ObjectIdentifier: any Channel] = [:]
    /// Whether shutdown has begun: new connections are closed at once.
    var isShutDown = false
    /// Tasks waiting for a condition on the counters, by id.
    var waiters: [UInt64: Waiter] = [:]
    /// The id of the next waiter.
    var nextWaiter: UInt64 = 0

    /// A task waiting until `condition` holds.
    struct Waiter {
        var condition: @Sendable (_ inFlight: Int, _ requests: Int) -> Bool
        var continuation: CheckedContinuation<Void, any Error>
    }
    /// Responses whose connection closed before they were complete (a client gave up on them).
    var abandoned = 0
    /// Tasks waiting for `abandoned` to reach a count.
    var abandonWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// How many times the counters were reset: a request's place in `requests` is good until the next reset.
    var resets = 0

    /// Records a request whose head arrived; returns its place, for ``requestBody(_:at:)``.
    mutating func requestStarted(_ request: RecordedRequest) -> (index: Int, resets: Int) {
        requests.append(request)
        inFlight += 1
        maxInFlight = max(maxInFlight, inFlight)
        wakeWaiters()
        return (requests.count - 1, resets)
    }

    /// Adds the body of the request recorded at `place`, unless the counters were reset since.
    mutating func requestBody(_ body: [UInt8], at place: (index: Int, resets: Int)) {
        guard place.resets == resets, requests.indices.contains(place.index) else { return }
        requests[place.index].body = body
    }

    mutating func requestFinished() {
        inFlight -= 1
        wakeWaiters()
    }

    /// Resumes (and forgets) every waiter whose condition holds now; resuming only schedules the waiting task.
    mutating func wakeWaiters() {
        let (inFlight, count) = (self.inFlight, requests.count)
        for (id, waiter) in waiters where waiter.condition(inFlight, count) {
            waiters[id] = nil
            waiter.continuation.resume()
        }
    }

    /// Counts a response given up on; returns the waiters to resume (outside the lock).
    mutating func requestAbandoned() -> [CheckedContinuation<Void, Never>] {
        abandoned += 1
        let ready = abandonWaiters.filter { $0.count <= abandoned }.map(\.continuation)
        abandonWaiters.removeAll { $0.count <= abandoned }
        return ready
    }
}
