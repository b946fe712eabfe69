import Foundation

/// What one rate budget knows of its server's limit, and the rules that decide whether a request may be sent:
/// the same for the budget of one instance (``RateBudgets``) and for a budget several instances share
/// (``RateBudgetStoring``), whose requests in flight are those of every instance.
package struct RateBudgetState: Sendable, Hashable {
    /// What ``decide(inFlight:now:)`` says of a request.
    package enum Decision: Sendable, Hashable {
        /// It may be sent.
        case send
        /// The budget is closed until the hold ends.
        case held(RateBudgets.Hold)
        /// The requests in flight may use up what is left: their answers will tell.
        case wait
    }

    /// The least remaining count the server reported in this window, nil when unknown.
    package var lowest: Int?
    /// When the window resets.
    package var reset: Date?
    /// A hold the server asked for (an exhausted limit, `Retry-After`, a source's hidden limit).
    package var hold: RateBudgets.Hold?

    /// A state; by default nothing is known.
    package init(lowest: Int? = nil, reset: Date? = nil, hold: RateBudgets.Hold? = nil) {
        self.lowest = lowest
        self.reset = reset
        self.hold = hold
    }

    /// Whether one more request may be sent at `now` while `inFlight` requests wait for their answers. A hold that
    /// is over is forgotten, and so is the count of a window that is over (unknown until the next answer).
    package mutating func decide(inFlight: Int, now: Date) -> Decision {
        if let hold {
            if hold.until > now { return .held(hold) }
            self.hold = nil
        }
        if let reset, reset <= now {
            lowest = nil
            self.reset = nil
        }
        // The server's least count less every request in flight: some of those it may have counted already, so
        // this is exact once they are answered.
        if let lowest, lowest - inFlight <= 0 {
            if inFlight > 0 { return .wait }
            if let reset, reset > now {
                return .held(RateBudgets.Hold(until: reset, reason: RateBudgets.exhausted))
            }
        }
        return .send
    }

    /// Learns the count and reset an answer reported: a late answer from a window that is over changes nothing, a
    /// new window starts from its count, and within a window the least count wins.
    package mutating func learn(_ limit: RateLimit) {
        guard let reported = limit.remaining else { return }
        let remaining = max(reported, 0)
        switch (reset, limit.reset) {
        case (let known?, let reported?) where reported < known:
            break  // A late answer from a window that is over.
        case (let known, let reported) where known != reported || lowest == nil:
            lowest = remaining
            reset = reported
        default:
            lowest = min(lowest ?? remaining, remaining)
        }
    }

    /// Closes the budget until `hold.until`; a later hold already there stays.
    mutating func hold(_ hold: RateBudgets.Hold) {
        if let existing = self.hold, existing.until >= hold.until { return }
        self.hold = hold
    }
}
