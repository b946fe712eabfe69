import Testing

@testable import MonitorCore
@testable import MonitorText

/// The issue's webhook: a Slack-like URL whose path and query are the secret.
private let hook = Redaction(url: "https://hooks.example.com/hooks/T0AAAA/B0BBBB/XyZsecret?v=1&key=q5ecr3t", values: [])

@Suite("What a notifier's secrets expand to, and text with them hidden")
struct RedactionTests {
    @Test("a receiver echoing the path without the query (Spring Boot's 404) shows none of it")
    func pathWithoutQuery() {
        #expect(
            hook.redacted(#"{"status":404,"error":"Not Found","path":"/hooks/T0AAAA/B0BBBB/XyZsecret"}"#)
                == #"{"status":404,"error":"Not Found","path":"…"}"#)
        #expect(hook.redacted("POST /hooks/T0AAAA/B0BBBB/XyZsecret?v=1&key=q5ecr3t HTTP/1.1") == "POST … HTTP/1.1")
        #expect(
            hook.redacted("at https://hooks.example.com/hooks/T0AAAA/B0BBBB/XyZsecret?v=1&key=q5ecr3t.")
                == "at ….")
        // PHP's json_encode escapes each slash.
        #expect(hook.redacted(#""path":"\/hooks\/T0AAAA\/B0BBBB\/XyZsecret""#) == #""path":"…""#)
    }

    @Test("each segment, the query, each query item and value from 4 characters on; shorter ones stay")
    func parts() {
        #expect(hook.redacted("team T0AAAA, bot B0BBBB, key XyZsecret") == "team …, bot …, key …")
        #expect(hook.redacted("query v=1&key=q5ecr3t; item key=q5ecr3t; value q5ecr3t") == "query …; item …; value …")
        #expect(hook.redacted("no hooks here") == "no … here")
        // `v=1`, `v` and `1` are too short to hide on their own; `hook` and `Webhook` are no secret's start of 8.
        #expect(hook.redacted("HTTP/1.1 v=1: Unknown Webhook, bad hook") == "HTTP/1.1 v=1: Unknown Webhook, bad hook")
    }

    @Test("whatever the ASCII case, and in pieces that touch: one …")
    func caseAndTouching() {
        #expect(hook.redacted("/HOOKS/t0aaaa/b0bbbb/XYZSECRET") == "…")
        #expect(hook.redacted("XyZsecretT0AAAA-B0BBBB") == "…-…")
    }

    @Test("a prefix of 8 characters or more of a secret is hidden, a shorter one is not")
    func prefixes() {
        #expect(hook.redacted("key XyZsecre…") == "key ……")
        #expect(hook.redacted("key XyZsecr…") == "key XyZsecr…")
        #expect(hook.redacted("route /hooks/T0A not found") == "route … not found")
        let bearer = Redaction(values: ["Bearer t0k3n-value"])
        #expect(bearer.redacted("got Bearer t0k3n-val") == "got …")
        #expect(bearer.redacted("token t0k3n-va…") == "token ……")
        // The whole URL's start is its origin, which a message shows.
        let chat = Redaction(url: "https://chat.example.com/hooks/T0AAAA", values: [])
        #expect(chat.redacted("at https://chat.example.com/") == "at https://chat.example.com/")
        // A segment that is a part of the host hides it in a text (not in the origin a message shows: see the webhook).
        #expect(hook.redacted("at https://hooks.example.com/") == "at https://….example.com/")
    }

    @Test("percent-decoded and percent-encoded forms")
    func percentForms() {
        let encoded = Redaction(url: "http://127.0.0.1:8080/in/my%20s3cr3t%2Fpath?to=a+b%2Bc", values: ["k e y/1"])
        #expect(
            encoded.redacted("path /in/my s3cr3t/path, segment my s3cr3t/path, query a b+c, a+b+c")
                == "path …, segment …, query …, …")
        #expect(encoded.redacted("key k%20e%20y%2F1 k%20e%20y/1") == "key … …")
    }

    @Test("each value whatever its length, each word of 4 characters or more, and escaped in a string")
    func values() {
        let secrets = Redaction(values: ["Bearer ghp_first\nghp_second", "k3", "*/*"])
        #expect(
            secrets.redacted(#"failed(["Bearer ghp_first\nghp_second"], ghp_second, k3y, */*)"#)
                == #"failed(["…"], …, …y, …)"#)
        #expect(secrets.redacted("Bearer required") == "… required")
        #expect(secrets.redacted("") == "")
        #expect(Redaction(values: ["", ""]).isEmpty)
        #expect(Redaction(values: ["", ""]).redacted("text") == "text")
    }

    @Test(
        "the base64 of a value, standard and URL-safe, padded or not, wherever it stands in longer data",
        arguments: [
            // `s3cr3t-env-value?>` alone, and after 6 ("TOKEN="), 1 ("x") and 2 ("x:") bytes of other data.
            ("czNjcjN0LWVudi12YWx1ZT8-", "…"),
            ("czNjcjN0LWVudi12YWx1ZT8+", "…"),
            ("VE9LRU49czNjcjN0LWVudi12YWx1ZT8+Cg==", "VE9LRU49…Cg=="),
            ("eHMzY3IzdC1lbnYtdmFsdWU_Pg", "eH…g"),
            ("eDpzM2NyM3QtZW52LXZhbHVlPz4=", "eDp…4="),
        ])
    func base64(encoded: String, shown: String) {
        #expect(Redaction(values: ["s3cr3t-env-value?>"]).redacted("got \(encoded).") == "got \(shown).")
    }

    @Test("a message: hidden before and after control characters are taken out, then cut to its limit")
    func message() {
        let secrets = Redaction(values: ["s3cr3t-value"])
        #expect(secrets.message("x s3cr3t\u{1B}[0m-value\ty", limit: 200) == "x … y")
        #expect(secrets.message("x s3cr3t-value\u{1B}[0m y", limit: 200) == "x … y")
        // A secret straddling the cut shows nothing of itself.
        #expect(secrets.message("01234567s3cr3t-value tail", limit: 10) == "01234567…")
        #expect(secrets.message("head s3cr3t-value01234567", limit: 10, keeping: .last) == "…01234567")
        #expect(secrets.message("  \n", limit: 10) == "")
    }

    @Test("where the text was cut, the end or start of a secret left at the edge is hidden, however short")
    func cutEdges() {
        let secrets = Redaction(values: ["s3cr3t-value"])
        #expect(secrets.redacted("tail s3c", cutAfter: true) == "tail …")
        #expect(secrets.redacted("tail s3c") == "tail s3c")
        #expect(secrets.redacted("ue tail", cutBefore: true) == "… tail")
        #expect(secrets.redacted("ue tail") == "ue tail")
        #expect(secrets.redacted("tail s", cutAfter: true) == "tail …")
    }

    @Test("the longest text hidden, in bytes, for a reader keeping an output's end")
    func longest() {
        // The URL-safe base64 of the 18-byte value at an offset of 0: 24 characters; the value itself 18.
        #expect(Redaction(values: ["s3cr3t-env-value?>"]).longest == 24)
        #expect(Redaction(values: []).longest == 0)
    }
}
