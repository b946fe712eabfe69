import Foundation
import MonitorConcurrency

extension PollContext {
    /// Fetches each of `inputs` with `fetch`, at most `concurrency` at once, and hands each answer to `report` in
    /// the order they arrive, one at a time, on a thread of the poll's own outside the cooperative pool (whose
    /// threads, one per core, then stay free to send the next request the moment an answer frees a permit, instead
    /// of waiting for a long decoding to end). The poll's progress counts each answer reported: `done` requests made
    /// before, of `done + inputs.count`. The first error `fetch` throws ends the poll, the fetches still running
    /// cancelled.
    package func fetchEach<Input: Sendable, Answer: Sendable>(
        _ inputs: [Input], after done: Int, progress found: Findings,
        _ fetch: @escaping @Sendable (Input) async throws -> Answer,
        report: @escaping @Sendable (Answer) -> Void
    ) async throws {
        let total = done + inputs.count
        var done = done
        found.progress(done: done, total: total)
        let reporting = DispatchQueue(label: "poll-answers")
        try await mergeBounded(inputs, limit: concurrency, fetch) { answer in
            await withCheckedContinuation { (reported: CheckedContinuation<Void, Never>) in
                reporting.async {
                    report(answer)
                    reported.resume()
                }
            }
            done += 1
            found.progress(done: done, total: total)
        }
    }
}
