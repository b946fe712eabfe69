import ServiceLifecycle
import Synchronization
import UnixSignals

/// The signals that stop `monitor`, each the way SIGTERM does — the programs it runs are ended first (their process
/// groups sent SIGTERM, then SIGKILL) — instead of killing it at once and leaving them running: SIGINT (Ctrl-C),
/// SIGTERM, SIGHUP (a closed terminal or SSH session), SIGQUIT, SIGUSR1, SIGUSR2 and SIGALRM.
enum StopSignals {
    /// Every one of them.
    static let all: [UnixSignal] = [.sigint, .sigterm, .sighup, .sigquit, .sigusr1, .sigusr2, .sigalrm]

    /// Traps them (but `except`): from now on they no longer kill the process, they arrive in the sequence. Trap them
    /// before starting anything a signal must end.
    static func trap(except: [UnixSignal] = []) async -> UnixSignalsSequence {
        await UnixSignalsSequence(trapping: all.filter { !except.contains($0) })
    }

    /// Ends a service group at the first of the signals it was given (trapped beforehand), and keeps which it was:
    /// `run` then exits 0, `run --once` 128 + its number.
    final class Watch: Service, Sendable {
        private let signals: UnixSignalsSequence
        private let caught = Mutex<UnixSignal?>(nil)

        init(_ signals: UnixSignalsSequence) {
            self.signals = signals
        }

        /// The signal that ended the group, if one did.
        var signal: UnixSignal? { caught.withLock { $0 } }

        func run() async {
            for await signal in signals.cancelOnGracefulShutdown() {
                caught.withLock { $0 = signal }
                return
            }
        }
    }

    /// Runs `body` unless one of `signals` arrives first; `body` is then cancelled (ending what it started) and its
    /// value comes back with the signal.
    static func run<Value: Sendable>(
        stoppingOn signals: UnixSignalsSequence, _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> (value: Value, signal: UnixSignal?) {
        // What ends first: the work (its value), or a signal.
        try await withThrowingTaskGroup(of: (value: Value?, signal: UnixSignal?).self) { group in
            group.addTask { (try await body(), nil) }
            group.addTask {
                for await signal in signals { return (nil, signal) }
                return (nil, nil)
            }
            var signal: UnixSignal?
            while let step = try await group.next() {
                if let value = step.value {
                    group.cancelAll()
                    return (value, signal)
                }
                if let received = step.signal {
                    signal = received
                    group.cancelAll()
                }
            }
            throw CancellationError()
        }
    }
}
