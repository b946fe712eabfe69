import Foundation
import MonitorCore
import PostgresNIO

/// The rate budgets in the database, shared by every instance using it: one row of `rate_budget` per origin,
/// credential fingerprint and resource (what is known of the server's limit, and the hold every instance obeys),
/// and one row of `rate_budget_flight` per request in flight, of any instance, until it is ended or expires.
///
/// Each question is one transaction that first locks the budget's row (inserted when new), so that instances
/// asking at once follow each other: two of them that know of 5 requests left let 5 through in total. The rules
/// are ``RateBudgetState``'s, with the requests in flight of every instance. Times are given by the caller, as
/// seconds since 1970 in the tables.
extension PostgresStateStore: RateBudgetStoring {
    /// Takes one request from `key`'s budget at `now`, counted in flight until it is ended or `expires`.
    public func takeRequest(_ key: RateBudgets.Key, now: Date, expires: Date) async throws -> SharedSpend {
        try await transaction { connection in
            let before = try await self.lockedBudget(key, connection: connection)
            var state = before
            let start = now.timeIntervalSince1970
            // Requests of an instance that never ended them (it died) stop counting when they expire.
            var inFlight = 0
            for try await (count) in try await connection.query(
                """
                WITH expired AS (
                    DELETE FROM rate_budget_flight
                    WHERE origin = \(key.origin) AND credential = \(key.credential) AND resource = \(key.resource)
                        AND expires <= \(start)
                )
                SELECT count(*)::integer FROM rate_budget_flight
                WHERE origin = \(key.origin) AND credential = \(key.credential) AND resource = \(key.resource)
                    AND expires > \(start)
                """, logger: self.logger
            ).decode(Int.self) {
                inFlight = count
            }
            let decision = state.decide(inFlight: inFlight, now: now)
            if state != before { try await self.write(state, key: key, connection: connection) }
            switch decision {
            case .held(let hold): return .held(hold)
            case .wait: return .wait
            case .send: break
            }
            var ticket: Int64 = 0
            for try await (taken) in try await connection.query(
                """
                INSERT INTO rate_budget_flight (origin, credential, resource, expires)
                VALUES (\(key.origin), \(key.credential), \(key.resource), \(expires.timeIntervalSince1970))
                RETURNING ticket
                """, logger: self.logger
            ).decode(Int64.self) {
                ticket = taken
            }
            return .send(ticket: ticket)
        }
    }

    /// Ends the request of `ticket`, if any, and learns the rate limit its answer reported, if any.
    public func endRequest(_ key: RateBudgets.Key, ticket: Int64?, answer: RateLimit?) async throws {
        try await transaction { connection in
            let before = try await self.lockedBudget(key, connection: connection)
            if let ticket {
                try await connection.query(
                    "DELETE FROM rate_budget_flight WHERE ticket = \(ticket)", logger: self.logger)
            }
            var state = before
            if let answer { state.learn(answer) }
            if state != before { try await self.write(state, key: key, connection: connection) }
        }
    }

    /// Closes `key`'s budget for every instance until `hold.until`; a later hold already there stays.
    public func holdRequests(_ key: RateBudgets.Key, _ hold: RateBudgets.Hold) async throws {
        let until = hold.until.timeIntervalSince1970
        try await transaction { connection in
            _ = try await connection.query(
                """
                INSERT INTO rate_budget AS b (origin, credential, resource, held_until, hold_reason)
                VALUES (\(key.origin), \(key.credential), \(key.resource), \(until), \(hold.reason))
                ON CONFLICT (origin, credential, resource) DO UPDATE
                SET held_until = excluded.held_until, hold_reason = excluded.hold_reason
                WHERE b.held_until IS NULL OR b.held_until < excluded.held_until
                """, logger: self.logger)
        }
    }

    /// The state of `key`'s budget, its row locked until the end of the transaction (inserted, empty, when new).
    private func lockedBudget(_ key: RateBudgets.Key, connection: PostgresConnection) async throws
        -> RateBudgetState
    {
        var state = RateBudgetState()
        // A conflicting insert that updates nothing still locks the row, and returns it.
        for try await (lowest, reset, heldUntil, reason) in try await connection.query(
            """
            INSERT INTO rate_budget AS b (origin, credential, resource)
            VALUES (\(key.origin), \(key.credential), \(key.resource))
            ON CONFLICT (origin, credential, resource) DO UPDATE SET lowest = b.lowest
            RETURNING lowest, reset_at, held_until, hold_reason
            """, logger: logger
        ).decode((Int?, Double?, Double?, String?).self) {
            state.lowest = lowest
            state.reset = reset.map(Date.init(timeIntervalSince1970:))
            if let heldUntil {
                state.hold = RateBudgets.Hold(
                    until: Date(timeIntervalSince1970: heldUntil), reason: reason ?? "the server asked to wait")
            }
        }
        return state
    }

    /// Writes `state` to `key`'s budget.
    private func write(_ state: RateBudgetState, key: RateBudgets.Key, connection: PostgresConnection) async throws {
        try await connection.query(
            """
            UPDATE rate_budget SET lowest = \(state.lowest), reset_at = \(state.reset?.timeIntervalSince1970),
                held_until = \(state.hold?.until.timeIntervalSince1970), hold_reason = \(state.hold?.reason)
            WHERE origin = \(key.origin) AND credential = \(key.credential) AND resource = \(key.resource)
            """, logger: logger)
    }
}
