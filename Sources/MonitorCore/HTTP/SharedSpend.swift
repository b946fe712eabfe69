import Foundation

/// What a shared rate budget says of a request.
package enum SharedSpend: Sendable, Hashable {
    /// It may be sent; `ticket` ends it.
    case send(ticket: Int64)
    /// The budget is closed until the hold ends.
    case held(RateBudgets.Hold)
    /// The requests in flight may use up what is left: ask again once some are answered.
    case wait
}
