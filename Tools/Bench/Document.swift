import ArgumentParser
import Foundation

/// Reading a document to measure: the file's bytes in one array, read straight into it (no second copy).
enum Document {
    /// The bytes of `path`.
    static func contents(of path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw ValidationError("cannot open \(path)") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw ValidationError("cannot read \(path)") }
        let size = Int(status.st_size)
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var done = 0
            while done < size {
                let read = Foundation.read(descriptor, buffer.baseAddress! + done, size - done)
                if read <= 0 {
                    failed = read < 0
                    break
                }
                done += read
            }
            count = done
        }
        guard !failed else { throw ValidationError("cannot read \(path)") }
        return bytes
    }

    /// The CPU time this process has used, in seconds (user and system).
    static func cpuSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Seconds since `start`.
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        (ContinuousClock.now - start).seconds
    }
}
