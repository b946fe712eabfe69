import MonitorCore

// MARK: - Online check

extension CommandNotifier {
    /// The program can be started: found where a delivery looks for it (the feeds file's directory, its `PATH`), a
    /// regular, executable file whose `#!` interpreter exists. Nothing is run.
    package func checkOnline() async -> OnlineCheck {
        guard let program = run.command.first else { return .wrong("'command' is empty") }
        return ProgramPath.check(
            program, searchPath: run.variables["PATH"], directory: run.directory, redaction: run.redaction)
    }
}
