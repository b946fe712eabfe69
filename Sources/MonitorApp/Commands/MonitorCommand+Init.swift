import ArgumentParser
import Foundation
import MonitorCore

extension MonitorCommand {
    /// `monitor init`: writes a commented starter feeds file; never overwrites one.
    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Write a commented starter feeds file (never overwrites an existing file)."
        )

        @OptionGroup var options: ConfigOptions
        /// Accepted so that one command line serves every subcommand; `init` writes no state.
        @OptionGroup(visibility: .hidden) var stateOptions: StateOptions

        func run() async throws {
            let path = options.path
            let url = URL(fileURLWithPath: path)
            // Create-only, so that a file appearing meanwhile is not overwritten either.
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
            guard descriptor >= 0 else {
                let reason = errno == EEXIST ? "already exists; not overwriting it" : String(cString: strerror(errno))
                Console.error("\(path): error: \(reason)\n")
                throw ExitStatus.failure
            }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            do {
                try handle.write(contentsOf: Data(StarterConfig.text.utf8))
                try handle.close()
            } catch {
                try? FileManager.default.removeItem(at: url)
                Console.error("\(path): error: cannot write: \(error.localizedDescription)\n")
                throw ExitStatus.failure
            }
            Console.out("wrote \(path): check it with `monitor validate`, then `monitor run`\n")
        }
    }
}
