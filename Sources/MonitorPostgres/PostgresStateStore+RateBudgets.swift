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
/// seconds since 1970 in the tables (so instances' clocks must agree within a few seconds); a hold and a reset are
/// believed no longer than ``HTTPPolicy/maximumHold`` after the database's clock (`clock_timestamp()`) saw them
/// written (`hold_learned_at`, `reset_learned_at`), so that an instance whose clock is ahead, or a broken row,
/// cannot close a token for longer than one instance would on its own.
extension PostgresStateStore: RateBudgetStoring {
    /// Takes one request from `key`'s budget at `now`, counted in flight until it is ended or `expires`.
    /// Expired requests of every budget are swept on the way.
    package func takeRequest(_ key: RateBudgets.Key, ticket: Int64, now: Date, expires: Date) async throws
        -> RateBudgetState.Decision
    {
        try await transaction { connection in
            let before = try await self.lockedBudget(key, connection: connection)
            var state = before
            let start = now.timeIntervalSince1970
            // Requests of an instance that never ended them (it died) stop counting when they expire.
            var inFlight = 0
            for try await (count) in try await connection.query(
                """
                WITH expired AS (DELETE FROM rate_budget_flight WHERE expires <= \(start))
                SELECT count(*)::integer FROM rate_budget_flight
                WHERE origin = \(key.origin) AND credential = \(key.credential) AND resource = \(key.resource)
                    AND expires > \(start)
                """, logger: self.logger
            ).decode(Int.self) {
                inFlight = count
            }
            let decision = state.decide(inFlight: inFlight, now: now)
            if state != before { try await self.write(state, key: key, connection: connection) }
            guard case .send = decision else { return decision }
            try await connection.query(
                """
                INSERT INTO rate_budget_flight (ticket, origin, credential, resource, expires)
                VALUES (\(ticket), \(key.origin), \(key.credential), \(key.resource), \(expires.timeIntervalSince1970))
                """, logger: self.logger)
            return .send
        }
    }

    /// Ends the request of `ticket`, if any, and learns the rate limit its answer reported, if any.
    package func endRequest(_ key: RateBudgets.Key, ticket: Int64?, answer: RateLimit?) async throws {
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

    /// Closes `key`'s budget for every instance until `hold.until`; a later hold already there stays while it is
    /// believed.
    package func holdRequests(_ key: RateBudgets.Key, _ hold: RateBudgets.Hold) async throws {
        let until = hold.until.timeIntervalSince1970
        try await transaction { connection in
            _ = try await connection.query(
                """
                INSERT INTO rate_budget AS b (origin, credential, resource, held_until, hold_reason, hold_learned_at)
                VALUES (
                    \(key.origin), \(key.credential), \(key.resource), \(until), \(hold.reason),
                    extract(epoch FROM clock_timestamp())::float8)
                ON CONFLICT (origin, credential, resource) DO UPDATE
                SET held_until = excluded.held_until, hold_reason = excluded.hold_reason,
                    hold_learned_at = excluded.hold_learned_at
                WHERE b.held_until IS NULL
                    OR least(b.held_until, coalesce(b.hold_learned_at, 0) + \(Self.believedSeconds))
                        < excluded.held_until
                """, logger: self.logger)
        }
    }

    /// How long a hold or a reset is believed after it was written, in seconds.
    private static var believedSeconds: Double { HTTPPolicy.maximumHold.seconds }

    /// The state of `key`'s budget as far as it is believed, its row locked until the end of the transaction
    /// (inserted, empty, when new).
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
            RETURNING lowest,
                CASE WHEN reset_at IS NOT NULL
                    THEN least(reset_at, coalesce(reset_learned_at, 0) + \(Self.believedSeconds)) END,
                CASE WHEN held_until IS NOT NULL
                    THEN least(held_until, coalesce(hold_learned_at, 0) + \(Self.believedSeconds)) END,
                hold_reason
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

    /// Writes `state` to `key`'s budget; a hold or reset that changed is learned now, by the database's clock.
    private func write(_ state: RateBudgetState, key: RateBudgets.Key, connection: PostgresConnection) async throws {
        let reset = state.reset?.timeIntervalSince1970
        let heldUntil = state.hold?.until.timeIntervalSince1970
        try await connection.query(
            """
            UPDATE rate_budget SET lowest = \(state.lowest), reset_at = \(reset), held_until = \(heldUntil),
                hold_reason = \(state.hold?.reason),
                reset_learned_at = CASE WHEN reset_at IS DISTINCT FROM \(reset)::float8
                    THEN extract(epoch FROM clock_timestamp())::float8 ELSE reset_learned_at END,
                hold_learned_at = CASE WHEN held_until IS DISTINCT FROM \(heldUntil)::float8
                    THEN extract(epoch FROM clock_timestamp())::float8 ELSE hold_learned_at END
            WHERE origin = \(key.origin) AND credential = \(key.credential) AND resource = \(key.resource)
            """, logger: logger)
    }
}
