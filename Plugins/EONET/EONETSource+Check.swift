import MonitorCore

// MARK: - Online check

extension EONETSource {
    /// Every category the feed names exists: `GET {api}/categories`, asked once per API root however many feeds
    /// use it; an unknown one is named with the likeliest meant among the real ones.
    package func checkOnline(_ context: OnlineCheckContext) async -> OnlineCheck {
        let poll = EONETPoll(options: options, context: context.pollContext)
        let answer = await context.shared.value(of: "eonet categories \(poll.api)") {
            () -> Result<[EONETCategoryList.Category], any Error> in
            do {
                return .success(try await poll.fetchCategories())
            } catch {
                return .failure(error)
            }
        }
        let catalog: [EONETCategoryList.Category]
        switch answer {
        case .success(let list): catalog = list
        case .failure(let error as FetchError): return .failed(error)
        case .failure(let error): return .wrong("\(error)")
        }
        do {
            let selected = try poll.select(from: catalog)
            guard poll.categories != nil else { return .ok("all \(catalog.count) categories") }
            return .ok(
                "\(selected.count) of \(catalog.count) categories: \(selected.map(\.id).joined(separator: ", "))")
        } catch {
            return .wrong("\(error)")
        }
    }
}
