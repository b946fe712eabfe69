import Foundation

/// A state that keeps rate budgets for several `monitor run` instances using the same tokens (PostgreSQL): what
/// one instance learns of a token's limit, and every request one of them sends, counts for all of them.
///
/// A budget is the row of a ``RateBudgets/Key`` (origin, credential FINGERPRINT, resource: never the credential)
/// holding a ``RateBudgetState`` and the requests in flight of every instance. Taking a request decides, under
/// the row's lock, with the rules of ``RateBudgetState/decide(inFlight:now:)`` over all instances' requests in
/// flight, and counts the request as in flight until it is ended or, if its instance never ends it (it died),
/// until its expiry: so two instances that know of 5 requests left send 5 in total, not 10. An answer writes its
/// count and reset by the rules of ``RateBudgetState/learn(_:)``; a hold written by one instance (an exhausted
/// limit, `Retry-After`, a secondary limit) is obeyed by all of them. A state without it (SQLite) is used by one
/// instance, whose budgets are its own; ``RateBudgets`` asks it only of budgets with a credential.
package protocol RateBudgetStoring: Sendable {
    /// Takes one request from `key`'s budget at `now` under `ticket` (chosen by the caller, so that a request whose
    /// answer was not waited for can still be ended): counted in flight until ended or until `expires`, it returns
    /// `.send`; or the hold that keeps it from being sent; or `.wait` when requests in flight (of any
    /// instance) may use up what is left. A hold or reset stored by another instance is believed no longer than
    /// ``HTTPPolicy/maximumHold`` after the database learned it.
    func takeRequest(_ key: RateBudgets.Key, ticket: Int64, now: Date, expires: Date) async throws
        -> RateBudgetState.Decision

    /// Ends the request of `ticket` (none: a request the budget was not asked about) and learns the rate limit its
    /// answer reported, if any.
    func endRequest(_ key: RateBudgets.Key, ticket: Int64?, answer: RateLimit?) async throws

    /// Closes `key`'s budget for every instance until `hold.until` (a later hold already there, and still believed,
    /// stays).
    func holdRequests(_ key: RateBudgets.Key, _ hold: RateBudgets.Hold) async throws
}
