import MonitorApp

/// The `monitor` executable: everything is in MonitorApp.
@main
enum Entry {
    static func main() async {
        MonitorCommand.prepareStandardStreams()
        MonitorCommand.raiseOpenFileLimit()
        MonitorCommand.supervisePrograms()
        await MonitorCommand.main()
    }
}
