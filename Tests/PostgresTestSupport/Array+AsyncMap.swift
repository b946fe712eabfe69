extension Array where Element: Sendable {
    /// The elements transformed by `transform`, one after the other, in order.
    package func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
