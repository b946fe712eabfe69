import TestSupport

@testable import MonitorCore

extension PollHarness {
    /// A harness with an empty state of `backend`, kept for as long as the harness.
    package static func make(_ backend: StateBackend, settings: Settings = Settings()) async throws -> PollHarness {
        let state = try await backend.makeState()
        return PollHarness(store: try await state.open(), keeping: state, settings: settings)
    }
}
