@testable import MonitorCore

extension RateBudgets.Spend {
    /// The hold, nil when the request may be sent.
    package var hold: RateBudgets.Hold? {
        if case .held(let hold) = self { return hold }
        return nil
    }

    /// The ticket that ends the request in the shared budget, nil when there is none.
    package var ticket: Int64? {
        if case .send(let ticket) = self { return ticket }
        return nil
    }
}
