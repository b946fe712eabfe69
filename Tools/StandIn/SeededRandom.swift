/// A small deterministic random number generator (SplitMix64): the same seed gives the same data on every
/// machine and every run.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    /// A generator starting from `seed`.
    init(seed: UInt64) {
        state = seed
    }

    /// A generator for one thing (an event, a repository) of the data made from `seed`.
    init(seed: UInt64, _ parts: UInt64...) {
        var mixed = seed
        for part in parts {
            mixed = SeededRandom.mix(mixed ^ (part &* 0x9E37_79B9_7F4A_7C15))
        }
        state = mixed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// True with probability `percent` / 100.
    mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }

    /// One of `choices`, each with its weight.
    mutating func weighted<T>(_ choices: [(T, Int)]) -> T {
        var pick = below(choices.reduce(0) { $0 + $1.1 })
        for (choice, weight) in choices {
            if pick < weight { return choice }
            pick -= weight
        }
        return choices[choices.count - 1].0
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A stable 64-bit hash of `text` (FNV-1a), for ids and ETags.
    static func hash(_ text: String) -> UInt64 {
        hash(bytes: text.utf8)
    }

    /// A stable 64-bit hash of `bytes` (FNV-1a).
    static func hash<Bytes: Sequence>(bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
