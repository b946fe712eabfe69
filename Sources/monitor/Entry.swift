import MonitorApp

/// The `monitor` executable: everything is in MonitorApp.
@main
enum Entry {
    static func main() async {
        MonitorCommand.prepareStandardStreams()
        if MonitorCommand.answeredVersion(arguments: CommandLine.arguments.dropFirst()) { return }
        MonitorCommand.raiseOpenFileLimit()
        MonitorCommand.supervisePrograms()
        await MonitorCommand.main()
    }
}
