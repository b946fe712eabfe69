import MonitorApp

/// The `monitor` executable: everything is in MonitorApp.
@main
enum Entry {
    static func main() async {
        MonitorCommand.prepareStandardStreams()
        await MonitorCommand.main()
    }
}
