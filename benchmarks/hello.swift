// The reference of figure 4's `monitor --version` (benchmarks/run.sh): a Swift program that imports Foundation and
// prints one line, linked as `make install` links monitor (`swiftc -O -static-stdlib`). The linker keeps only what a
// program uses: this one starts without Foundation's code or ICU's data in its file.
import Foundation

print("hello, world")
