import MonitorCore
import MonitorPrograms
import MonitorText

// MARK: - Online check

extension ExecSource {
    /// The program can be started: found where a poll looks for it (the feeds file's directory, its `PATH`), a
    /// regular, executable file whose `#!` interpreter exists. Nothing is run.
    package func checkOnline(_ context: OnlineCheckContext) async -> OnlineCheck {
        guard let program = options[Self.command]?.first else { return .wrong("'command' is empty") }
        let env = options[Self.env] ?? [:]
        return ProgramPath.check(
            program, searchPath: ProgramEnvironment.make(env: env, from: context.environment)["PATH"],
            directory: options.directory,
            redaction: Redaction(values: Array(env.values)))
    }
}
