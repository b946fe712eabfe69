/// The version of monitor, shown by `monitor --version` and sent in the `User-Agent`.
public enum MonitorVersion {
    /// The version string, `MAJOR.MINOR.PATCH`.
    public static let current = "0.1.0"
}
