import MonitorCore

// MARK: - Online check

extension CommandNotifier {
    /// The program can be started: found where a delivery looks for it (the `PATH` of its environment), a regular,
    /// executable file whose `#!` interpreter exists. Nothing is run.
    package func checkOnline() async -> OnlineCheck {
        guard let program = run.command.first else { return .wrong("'command' is empty") }
        return ProgramPath.check(program, searchPath: run.variables["PATH"], redaction: run.redaction)
    }
}
