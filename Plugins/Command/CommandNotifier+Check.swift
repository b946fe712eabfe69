import MonitorCore
import MonitorPrograms

// MARK: - Online check

extension CommandNotifier {
    /// The program can be started: found where a delivery looks for it (the feeds file's directory, its `PATH`), a
    /// regular, executable file whose `#!` interpreter exists. Nothing is run.
    package func checkOnline() async -> OnlineCheck { program.check() }
}
