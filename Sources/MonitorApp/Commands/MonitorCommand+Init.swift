import ArgumentParser
import Foundation
import MonitorCore

extension MonitorCommand {
    /// `monitor init`: writes a commented starter feeds file, or one made from another reader's OPML export; never
    /// overwrites one.
    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Write a commented starter feeds file (never overwrites an existing file).",
            discussion: """
                With --from-opml, the file lists one `type: feed` per subscription of another reader's OPML export \
                (newsboat: `newsboat -e`; miniflux, Feedly, NetNewsWire: their export), named after its title.
                """
        )

        @OptionGroup var options: ConfigOptions
        /// An OPML export to make the feeds from.
        @Option(
            name: .customLong("from-opml"),
            help: ArgumentHelp("Make the feeds from this OPML export", valueName: "file"))
        var fromOPML: String?
        /// Accepted so that one command line serves every subcommand; `init` writes no state.
        @OptionGroup(visibility: .hidden) var stateOptions: StateOptions

        func run() async throws {
            let path = options.path
            let url = URL(fileURLWithPath: path)
            var text = StarterConfig.text
            var done = "wrote \(path): check it with `monitor validate`, then `monitor run`\n"
            if let opml = fromOPML {
                do {
                    let subscriptions = try OPMLImport.subscriptions(in: Data(try ConfigLoader.bytes(path: opml).get()))
                    text = OPMLImport.feedsFile(subscriptions, source: opml)
                    let count = subscriptions.count == 1 ? "1 feed" : "\(subscriptions.count) feeds"
                    done =
                        "wrote \(path) with \(count) from \(opml): check it with `monitor validate --online`, then `monitor run`\n"
                } catch {
                    Console.error("\(opml): error: \(error)\n")
                    throw ExitStatus.failure
                }
            }
            // Create-only, so that a file appearing meanwhile is not overwritten either.
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
            guard descriptor >= 0 else {
                let reason = errno == EEXIST ? "already exists; not overwriting it" : String(cString: strerror(errno))
                Console.error("\(path): error: \(reason)\n")
                throw ExitStatus.failure
            }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            do {
                try handle.write(contentsOf: Data(text.utf8))
                try handle.close()
            } catch {
                try? FileManager.default.removeItem(at: url)
                Console.error("\(path): error: cannot write: \(error.localizedDescription)\n")
                throw ExitStatus.failure
            }
            Console.out(done)
        }
    }
}
