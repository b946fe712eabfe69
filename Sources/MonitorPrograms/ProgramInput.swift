import Foundation

/// The standard input of an external program: a file holding its bytes, already unlinked, open at its start. The
/// program reads its input when it likes, and one that never does cannot block on a full pipe or break `monitor`
/// with SIGPIPE.
enum ProgramInput {
    /// A file holding `bytes`, open for reading at its start and close-on-exec (the spawned program gets it as its
    /// standard input, no other program started meanwhile does).
    static func file(_ bytes: [UInt8]) throws(ProgramRun.Failure) -> Int32 {
        var template = Array("\(NSTemporaryDirectory())/monitor-input-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw ProgramRun.Failure(
                message: "cannot make the program's input file: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        unlink(template)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw ProgramRun.Failure(message: "cannot write the program's input file: \(reason)")
            }
            written += count
        }
        lseek(descriptor, 0, SEEK_SET)
        return descriptor
    }
}
