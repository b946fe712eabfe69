#!/usr/bin/env python3
"""USGS earthquakes for monitor's `type: exec`, grouped by magnitude band.

Reads the USGS GeoJSON summary feed (https://earthquake.usgs.gov/earthquakes/feed/v1.0/geojson.php) and writes
monitor's protocol 1 on standard output, one JSON object per line. Plain Python 3, standard library only.

The request is conditional: the cursor monitor hands back (on standard input, and in MONITOR_CURSOR) holds the
ETag and Last-Modified of the last answer; when the server answers 304 Not Modified, the program says
{"unchanged": true} and monitor keeps the quakes it has.

    feeds:
      - name: quakes
        type: exec
        command: [python3, examples/sources/usgs_quakes.py, --min-magnitude, "4.5"]
        retention: replace
        env: {USGS_API: "https://earthquake.usgs.gov"}

Options: --min-magnitude M (default 2.5) picks the summary feed and drops smaller quakes; --period
hour|day|week|month (default week); --url URL reads that feed instead (USGS_FEED_URL does the same); USGS_API
changes the server's root (default https://earthquake.usgs.gov).
"""

import argparse
import datetime
import json
import os
import sys
import urllib.error
import urllib.request

# Magnitude bands, largest first: (group id, title, lowest magnitude).
BANDS = [
    ("m7", "Magnitude 7+", 7.0),
    ("m6", "Magnitude 6 to 7", 6.0),
    ("m5", "Magnitude 5 to 6", 5.0),
    ("m4", "Magnitude 4 to 5", 4.0),
    ("m3", "Magnitude 3 to 4", 3.0),
    ("m2", "Magnitude 2 to 3", 2.0),
    ("m1", "Magnitude 1 to 2", 1.0),
    ("m0", "Below magnitude 1", float("-inf")),
]


def say(message):
    """Writes one protocol message as a line, at once, so that monitor shows progress as it comes."""
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def band(magnitude):
    for group, _, lowest in BANDS:
        if magnitude >= lowest:
            return group
    return BANDS[-1][0]


def feed_url(arguments):
    """The summary feed to read: --url, else USGS_FEED_URL, else the smallest feed holding --min-magnitude."""
    if arguments.url:
        return arguments.url
    if os.environ.get("USGS_FEED_URL"):
        return os.environ["USGS_FEED_URL"]
    root = os.environ.get("USGS_API", "https://earthquake.usgs.gov").rstrip("/")
    minimum = arguments.min_magnitude
    level = "4.5" if minimum >= 4.5 else "2.5" if minimum >= 2.5 else "1.0" if minimum >= 1.0 else "all"
    return "%s/earthquakes/feed/v1.0/summary/%s_%s.geojson" % (root, level, arguments.period)


def read_cursor():
    """The cursor monitor saved: from the JSON object on standard input, else from MONITOR_CURSOR."""
    text = None
    try:
        given = json.loads(sys.stdin.readline() or "{}")
        text = given.get("cursor")
    except ValueError:
        pass
    text = text or os.environ.get("MONITOR_CURSOR")
    try:
        cursor = json.loads(text) if text else {}
    except ValueError:
        cursor = {}
    return cursor if isinstance(cursor, dict) else {}


def iso_date(milliseconds):
    moment = datetime.datetime.fromtimestamp(milliseconds / 1000, tz=datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (milliseconds % 1000)


def number_text(value):
    return ("%g" % value) if isinstance(value, (int, float)) else str(value)


def item(feature, minimum):
    """The protocol item of one GeoJSON feature, or None when it is below the minimum or has no magnitude."""
    properties = feature.get("properties") or {}
    magnitude = properties.get("mag")
    if not isinstance(magnitude, (int, float)) or magnitude < minimum or not feature.get("id"):
        return None
    place = properties.get("place") or "somewhere"
    details = {"mag": number_text(magnitude), "place": place}
    coordinates = (feature.get("geometry") or {}).get("coordinates") or []
    if len(coordinates) >= 2 and all(isinstance(value, (int, float)) for value in coordinates[:2]):
        # GeoJSON's order is longitude, latitude: as numbers, so that `monitor map` places the quake.
        details["lat"] = coordinates[1]
        details["lon"] = coordinates[0]
    if len(coordinates) >= 3 and isinstance(coordinates[2], (int, float)):
        details["depth"] = number_text(coordinates[2]) + " km"
    if properties.get("alert"):
        details["alert"] = properties["alert"]
    if properties.get("tsunami"):
        details["tsunami"] = "yes"
    message = {
        "id": feature["id"],
        "title": properties.get("title") or "M %s - %s" % (number_text(magnitude), place),
        "date": iso_date(int(properties.get("time") or 0)),
        "groups": [band(magnitude)],
        "details": details,
    }
    if properties.get("url"):
        message["url"] = properties["url"]
    return message


def main():
    parser = argparse.ArgumentParser(description="USGS earthquakes for monitor (type: exec)")
    parser.add_argument("--min-magnitude", type=float, default=2.5)
    parser.add_argument("--period", choices=["hour", "day", "week", "month"], default="week")
    parser.add_argument("--url", help="the GeoJSON summary feed to read")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds for the request")
    arguments = parser.parse_args()

    url = feed_url(arguments)
    cursor = read_cursor()
    fields = {"User-Agent": "monitor-usgs-example/1", "Accept": "application/json"}
    request = urllib.request.Request(url, headers=fields)
    if cursor.get("url") == url:
        if cursor.get("etag"):
            request.add_header("If-None-Match", cursor["etag"])
        if cursor.get("last_modified"):
            request.add_header("If-Modified-Since", cursor["last_modified"])

    say({"progress": {"done": 0, "total": 1}})
    try:
        with urllib.request.urlopen(request, timeout=arguments.timeout) as response:
            body = response.read()
            headers = response.headers
    except urllib.error.HTTPError as error:
        if error.code == 304:
            say({"unchanged": True})
            say({"progress": {"done": 1, "total": 1}})
            return 0
        print("GET %s: HTTP %d %s" % (url, error.code, error.reason), file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError) as error:
        print("GET %s: %s" % (url, getattr(error, "reason", error)), file=sys.stderr)
        return 1

    try:
        document = json.loads(body)
        features = document["features"]
    except (ValueError, KeyError, TypeError):
        print("GET %s: not a USGS GeoJSON feed" % url, file=sys.stderr)
        return 1

    # The bands the minimum reaches, shown even when empty.
    upper = float("inf")
    for group, title, lowest in BANDS:
        if upper > arguments.min_magnitude:
            say({"group": {"id": group, "title": title}})
        upper = lowest
    for feature in features:
        message = item(feature, arguments.min_magnitude)
        if message:
            say({"item": message})
    say({"progress": {"done": 1, "total": 1}})
    say({"cursor": json.dumps({"url": url, "etag": headers.get("ETag"), "last_modified": headers.get("Last-Modified")})})
    return 0


if __name__ == "__main__":
    sys.exit(main())
