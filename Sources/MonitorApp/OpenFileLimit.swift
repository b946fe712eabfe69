import Foundation

/// The process's limit of open files (`RLIMIT_NOFILE`): the descriptors that the feeds' programs and connections, the
/// state, the feeds-file watcher and the metrics server's connections share.
enum OpenFileLimit {
    /// The soft limit now: how many descriptors the process may hold (1024, the usual default, if it cannot be read).
    static var current: Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        return limit.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// Raises the soft limit to the hard one, as far as the system lets a process go; leaves it as it is when the
    /// system refuses.
    static func raise() {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return }
        var wanted = limit.rlim_max
        #if canImport(Darwin)
            // macOS refuses a soft limit above kern.maxfilesperproc, RLIM_INFINITY included (Go caps it the same way).
            var perProcess: Int32 = 0
            var size = MemoryLayout<Int32>.size
            if sysctlbyname("kern.maxfilesperproc", &perProcess, &size, nil, 0) == 0, perProcess > 0 {
                wanted = min(wanted, rlim_t(perProcess))
            }
        #endif
        guard wanted > limit.rlim_cur else { return }
        limit.rlim_cur = wanted
        _ = setrlimit(resource, &limit)
    }

    #if canImport(Glibc)
        private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resource = RLIMIT_NOFILE
    #endif
}
