import MonitorCore

extension StateStoring {
    /// The notifications still to deliver, in the order the polls wrote them.
    package func outbox() async throws -> [OutboxEntry] {
        try await outbox(refused: false)
    }
}
