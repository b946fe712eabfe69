import MonitorApp

/// The `monitor` executable: everything is in MonitorApp.
@main
enum Entry {
    static func main() async {
        guard MonitorCommand.prepare(arguments: CommandLine.arguments.dropFirst()) else { return }
        await MonitorCommand.main()
    }
}
