import MonitorConcurrency
import TestSupport
import Testing

@testable import MonitorCore
@testable import MonitorYAML

@Suite("Mutated input never crashes", .timeLimit(.minutes(5)))
struct FuzzTests {
    /// A small deterministic generator, so a failure reproduces.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    static let seedDocument = Array(
        """
        %TAG !e! tag:example.com,2024:
        --- !e!config
        base: &base {interval: 60, "timeout": 5}
        sources:
          - <<: *base
            name: 'é日本 😀'
            tags: [a, b, {c: d}]
            body: |-
              literal
            folded: >
              text
          - &x !!str plain
          - *x
        ...

        """.utf8
    )

    @Test("random byte mutations of a valid document parse or throw")
    func mutations() async throws {
        // Seconds of CPU: run on a thread of its own, not on the cooperative pool other tests wait on.
        let outcome = await offThePool { Self.mutate(times: 3000) }
        #expect(outcome.badMarks == [])
        #expect(outcome.failures > 0)
    }

    /// Parses `times` random mutations of the seed document; returns how many threw, and the marks of those whose
    /// line or column was below 1.
    static func mutate(times: Int) -> (failures: Int, badMarks: [Mark]) {
        var random = Generator(state: 42)
        let interesting: [UInt8] =
            Array("[]{}:,-?&*!|>'\"#%@`\t\n\r \0".utf8) + [0x80, 0xC3, 0xE6, 0xF0, 0xFF, 0xC2, 0x85]
        var failures = 0
        var badMarks: [Mark] = []
        for _ in 0..<times {
            var bytes = Self.seedDocument
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let position = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[position] = interesting.randomElement(using: &random)!
                case 1: bytes.insert(interesting.randomElement(using: &random)!, at: position)
                default: bytes.remove(at: position)
                }
            }
            do {
                _ = try YAMLParser.compose(utf8: bytes)
            } catch {
                failures += 1
                if error.mark.line < 1 || error.mark.column < 1 { badMarks.append(error.mark) }
            }
        }
        return (failures, badMarks)
    }
}
