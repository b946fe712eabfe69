/// The commented starter `feeds.yaml` that `monitor init` writes.
package enum StarterConfig {
    /// The text of the starter file; it validates as it is.
    package static let text = """
        # feeds.yaml: the feeds `monitor run` watches.
        # Check it with `monitor validate`; `monitor sources` lists every option with its default.
        # Durations are written 90s, 15m or 1h. Any value may use ${VAR}, ${VAR:-default} or ${VAR:?message}.

        settings:
          concurrency: 4      # HTTP requests in flight across all feeds
          interval: 15m       # how often a feed is polled, unless it says otherwise
          timeout: 30s        # time limit of one request

        feeds:
          # The events of one repository (or `org: NAME`, or `user: NAME`).
          - name: rxswift
            type: github
            repo: ReactiveX/RxSwift
            token: ${GITHUB_TOKEN:-}    # optional: 5,000 requests an hour instead of 60
            keep: 50                    # how many of the newest events to keep

          # The combined events of the top 5 repositories of a search, by stars.
          - name: swift-top
            type: github
            search: "language:swift"
            top: 5
            token: ${GITHUB_TOKEN:-}

          # An RSS, Atom or JSON Feed document: here, Swift's releases (no GitHub rate limit spent).
          - name: swift-releases
            type: feed
            url: https://github.com/swiftlang/swift/releases.atom

          # NASA's natural events of the last 360 days, counted per category.
          - name: planet
            type: eonet
            days: 360
            status: all                 # open, closed or all
            # categories: [wildfires, volcanoes]   # default: every category

        # Who is told, and how (see the README): a webhook (json, slack, discord, ntfy or text) or a command.
        # notify:
        #   - name: chat
        #     type: webhook
        #     url: ${CHAT_WEBHOOK_URL}    # a secret: never printed whole
        #     format: slack
        #     on: [new, failed, recovered]

        """
}
