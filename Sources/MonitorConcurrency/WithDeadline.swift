/// What `work` returns or throws, unless `deadline` passes first: then `work` is cancelled and `expired` is thrown.
///
/// `work` runs in a task of its own, timed by `sleep` (a test's manual clock, an event loop's timer):
/// - A cancelled caller lets `work` go on, uncancelled, for `grace` (a commit the server is answering is kept): its
///   outcome is returned if it ends by then, else `CancellationError` is thrown and `work` is cancelled. Without a
///   grace, `work` is cancelled at once. The deadline still holds during the grace.
/// - Once `work` is cancelled, the caller waits for it to end (a request whose connection closes, a program torn
///   down), unless `leaving` is given: then the caller returns at once and leaves `work` running until it heeds the
///   cancellation (a call to a server that may never answer); a value it returns after all is handed to `leaving`.
///
/// The task is unstructured, the one exception to "no task outlives its scope" here: a cancelled caller must not cancel
/// it before the grace, and when `leaving` it outlives the caller.
package func withDeadline<Value: Sendable>(
    _ deadline: Duration, grace: Duration = .zero, orThrow expired: any Error,
    leaving: (@Sendable (Value) -> Void)? = nil,
    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
    _ work: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let outcome = OneShot<Result<Value, any Error>>()
    let callerCancelled = Wakeup()
    let race = Task {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    let value = try await work()
                    if !outcome.fulfil(.success(value)) { leaving?(value) }
                } catch {
                    outcome.fulfil(.failure(error))
                }
            }
            group.addTask {
                try? await sleep(deadline)
                outcome.fulfil(.failure(expired))
            }
            group.addTask {
                await callerCancelled.wait()
                if grace > .zero { try? await sleep(grace) }
                outcome.fulfil(.failure(CancellationError()))
            }
            // The first to end settled the outcome (nothing is cancelled before): the others are cancelled, and waited
            // for.
            await group.next()
            group.cancelAll()
        }
    }
    let result = await withTaskCancellationHandler {
        await outcome.value
    } onCancel: {
        callerCancelled.signal()
    }
    if leaving == nil { await race.value }
    return try result.get()
}
