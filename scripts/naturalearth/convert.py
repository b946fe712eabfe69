#!/usr/bin/env python3
"""Converts Natural Earth's 1:110m country outlines into the compact form `monitor map` draws.

Where the data comes from: the copy of Natural Earth's `ne_110m_admin_0_countries` in the geopandas 0.14.4 wheel
on PyPI (`geopandas/datasets/naturalearth_lowres/naturalearth_lowres.shp`). Natural Earth is in the public domain
(https://www.naturalearthdata.com/about/terms-of-use/). Run once, by hand, when the outlines are to be rebuilt:

    pip download geopandas==0.14.4 --no-deps -d /tmp/ne
    scripts/naturalearth/convert.py /tmp/ne/geopandas-0.14.4-py3-none-any.whl Sources/MonitorApp/Map/world-110m.outlines

The committed file was written from the wheel whose sha256 is
3bb6473cb59d51e1a7fe2dbc24a1a063fb0ebdeddf3ce08ddbf8c7ddc99689aa: 290 polylines, 10577 points, 27958 bytes.

Only Python's standard library is used: a shapefile's .shp is a simple binary format (ESRI's shapefile technical
description, 1998). Every ring of every polygon becomes a polyline of points in hundredths of a degree; a segment
that crosses the antimeridian (longitudes more than 180 degrees apart) splits its line in two, and so does a
segment lying on the antimeridian itself (it is where the data cut a country, not a coast). Consecutive points
that round to the same hundredth are kept once.

The output is a resource the build embeds in the binary (`.embedInCode` in Package.swift), in this byte format: for
each polyline, its number of points, then its first point's longitude and latitude, then each next point's differences from the one before, all
as zigzag LEB128 varints (longitude first; hundredths of a degree, east and north positive).
"""

import hashlib
import struct
import sys
import zipfile

MEMBER = "geopandas/datasets/naturalearth_lowres/naturalearth_lowres.shp"
WHEEL = "geopandas-0.14.4-py3-none-any.whl"
SCALE = 100  # hundredths of a degree


def rings(shp):
    """Yields each ring of each polygon of the .shp bytes as a list of (lon, lat)."""
    code, = struct.unpack(">i", shp[0:4])
    if code != 9994:
        raise SystemExit(f"convert.py: {MEMBER} is not a shapefile (file code {code})")
    offset = 100
    while offset < len(shp):
        _, words = struct.unpack(">ii", shp[offset:offset + 8])
        content = shp[offset + 8:offset + 8 + 2 * words]
        offset += 8 + 2 * words
        shape, = struct.unpack("<i", content[0:4])
        if shape == 0:
            continue
        if shape != 5:
            raise SystemExit(f"convert.py: shape type {shape} where polygons (5) were expected")
        parts, points = struct.unpack("<ii", content[36:44])
        starts = list(struct.unpack(f"<{parts}i", content[44:44 + 4 * parts])) + [points]
        base = 44 + 4 * parts
        coordinates = struct.unpack(f"<{2 * points}d", content[base:base + 16 * points])
        for start, end in zip(starts, starts[1:]):
            yield [(coordinates[2 * index], coordinates[2 * index + 1]) for index in range(start, end)]


def lines(ring):
    """The ring as polylines in hundredths of a degree, split where a segment crosses or lies on the antimeridian."""
    result = [[]]
    previous = None
    for lon, lat in ring:
        point = (round(lon * SCALE), round(lat * SCALE))
        if previous is not None:
            if point == previous:
                continue
            crosses = abs(point[0] - previous[0]) > 180 * SCALE
            on_seam = abs(point[0]) == 180 * SCALE and point[0] == previous[0]
            if crosses or on_seam:
                result.append([])
        result[-1].append(point)
        previous = point
    return [line for line in result if len(line) >= 2]


def varint(value, out):
    zigzag = (value << 1) ^ (value >> 63)
    while True:
        byte = zigzag & 0x7F
        zigzag >>= 7
        if zigzag:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return


def main():
    if len(sys.argv) != 3:
        raise SystemExit(f"usage: {sys.argv[0]} PATH/TO/{WHEEL} OUTPUT")
    with open(sys.argv[1], "rb") as file:
        wheel = file.read()
    digest = hashlib.sha256(wheel).hexdigest()
    with zipfile.ZipFile(sys.argv[1]) as archive:
        shp = archive.read(MEMBER)
    out = bytearray()
    polylines = 0
    points = 0
    for ring in rings(shp):
        for line in lines(ring):
            polylines += 1
            points += len(line)
            varint(len(line), out)
            previous = (0, 0)
            for point in line:
                varint(point[0] - previous[0], out)
                varint(point[1] - previous[1], out)
                previous = point
    with open(sys.argv[2], "wb") as file:
        file.write(bytes(out))
    print(f"{sys.argv[2]}: {polylines} polylines, {points} points, {len(out)} bytes, from the wheel of sha256 {digest}")


if __name__ == "__main__":
    main()
