/// The version of monitor, shown by `monitor --version` and sent in the `User-Agent`.
package enum MonitorVersion {
    /// The version string, `MAJOR.MINOR.PATCH`.
    package static let current = "0.1.0"
}
