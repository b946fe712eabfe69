import MonitorApp

/// The `monitor` executable: everything is in MonitorApp.
@main
enum Entry {
    static func main() async {
        await MonitorCommand.main()
    }
}
