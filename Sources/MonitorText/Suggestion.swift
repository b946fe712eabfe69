/// "Did you mean …?" suggestions for misspelt keys and names.
package enum Suggestion {
    /// The most candidates compared: a list from a server may hold any number.
    static let maximumCandidates = 1000

    /// The candidate closest to `word` among the first ``maximumCandidates``, when it is close enough to be a likely
    /// typo.
    package static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let lowered = word.lowercased()
        var best: (candidate: String, distance: Int)?
        // A candidate whose length differs by more than 3 is more than 3 edits away: never close enough.
        for candidate in candidates.prefix(maximumCandidates) where abs(candidate.count - lowered.count) <= 3 {
            let distance = editDistance(lowered, candidate.lowercased())
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        let allowed = max(1, min(3, best.candidate.count / 3))
        return best.distance <= allowed ? best.candidate : nil
    }

    /// The number of insertions, deletions, substitutions and swaps of neighbours that turn `a` into `b`.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previousPrevious[j - 2] + 1)
                }
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }
}
