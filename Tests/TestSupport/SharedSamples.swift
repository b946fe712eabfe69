import Foundation

/// The team's real captures beside the package, `../shared/api-samples` (small) and `../shared/realdata` (large):
/// read in place, never copied into the project, and absent on most machines.
///
/// A suite that reads them is `.enabled(if: SharedSamples.apiSamples != nil, "../shared/api-samples … is absent")`, so that
/// `swift test` says when it skips.
package enum SharedSamples {
    /// `../shared/api-samples`, when that folder exists.
    package static let apiSamples: URL? = folder("api-samples")

    /// `../shared/realdata`, when that folder exists.
    package static let realdata: URL? = folder("realdata")

    /// The names of the files in `folder` (none when it is nil or unreadable), sorted.
    package static func files(in folder: URL?) -> [String] {
        guard let folder, let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
            return []
        }
        return names.sorted()
    }

    /// `../shared`, when both of its folders of captures are there.
    package static var folder: URL? {
        guard let apiSamples, realdata != nil else { return nil }
        return apiSamples.deletingLastPathComponent()
    }

    /// The bytes of `file`, a path under `../shared` such as `realdata/…` (throws when it cannot be read).
    package static func bytes(_ file: String) throws -> [UInt8] {
        let root = folder ?? URL(fileURLWithPath: "/nonexistent/shared")
        return Array(try Data(contentsOf: root.appendingPathComponent(file)))
    }

    /// The captures of both folders whose file names pass `include`, as `api-samples/…` and `realdata/…`, sorted.
    package static func captures(where include: (String) -> Bool) -> [String] {
        [("api-samples", apiSamples), ("realdata", realdata)].flatMap { name, url in
            files(in: url).filter(include).map { "\(name)/\($0)" }
        }.sorted()
    }

    /// `../shared/NAME` from the package root (this file is `Tests/TestSupport/SharedSamples.swift`), when it is a
    /// folder.
    private static func folder(_ name: String) -> URL? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let folder = root.deletingLastPathComponent().appendingPathComponent("shared").appendingPathComponent(name)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory)
        return exists && isDirectory.boolValue ? folder : nil
    }
}
