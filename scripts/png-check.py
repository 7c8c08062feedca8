#!/usr/bin/env python3
"""Checks that a PNG screenshot is not blank: decodes it with the standard library only (zlib,
struct; no PIL) and requires at least MIN_COLOURS distinct colours and at least MIN_INK (a
fraction) of pixels that are not near-white.

    scripts/png-check.py FILE.png [MIN_COLOURS [MIN_INK]]      (defaults: 16, 0.02)

Prints `FILE: WxH, N colours, X% ink` and exits 0, or names what is missing and exits 1.

    scripts/png-check.py --shrink FILE.png OUT.png

writes a smaller copy for the documentation (docs/img/): every channel rounded to a multiple
of 8 (invisible on a screenshot), each row's PNG filter chosen by the minimum sum of absolute
differences (None, Sub or Up), zlib level 9.
Supports what browsers write: 8-bit greyscale, RGB, RGBA (and grey+alpha), non-interlaced,
every PNG row filter (PNG specification, section 9: None, Sub, Up, Average, Paeth).
"""

import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("no IHDR chunk")
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace != 0:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1 : start + 1 + stride])
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif kind == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b = prev[i]
                c = prev[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        elif kind != 0:
            raise ValueError(f"bad filter {kind} on row {y}")
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def shrink(path, out_path):
    width, height, channels, rows = decode(path)
    out, prev = bytearray(), bytes(width * channels)
    for row in rows:
        row = bytes(min(255, (x + 4) // 8 * 8) for x in row)
        sub = bytes((row[i] - (row[i - channels] if i >= channels else 0)) & 0xFF for i in range(len(row)))
        up = bytes((a - b) & 0xFF for a, b in zip(row, prev))
        best = min(
            ((0, row), (1, sub), (2, up)),
            key=lambda c: sum(x if x < 128 else 256 - x for x in c[1]),
        )
        out.append(best[0])
        out += best[1]
        prev = row

    def chunk(kind, body):
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    colour = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(bytes(out), 9))
        + chunk(b"IEND", b"")
    )
    open(out_path, "wb").write(png)
    print(f"{out_path}: {len(png)} bytes")


def main():
    if sys.argv[1] == "--shrink":
        shrink(sys.argv[2], sys.argv[3])
        return
    path = sys.argv[1]
    min_colours = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    min_ink = float(sys.argv[3]) if len(sys.argv) > 3 else 0.02
    width, height, channels, rows = decode(path)
    colours, ink = set(), 0
    for row in rows:
        for x in range(0, len(row), channels):
            px = row[x : x + min(channels, 3)]
            colours.add(px)
            if min(px) < 235:
                ink += 1
    fraction = ink / (width * height)
    print(f"{path}: {width}x{height}, {len(colours)} colours, {100 * fraction:.1f}% ink")
    problems = []
    if len(colours) < min_colours:
        problems.append(f"only {len(colours)} distinct colours (want {min_colours})")
    if fraction < min_ink:
        problems.append(f"only {100 * fraction:.2f}% non-white pixels (want {100 * min_ink:.0f}%)")
    if problems:
        print(f"{path}: blank? " + "; ".join(problems))
        sys.exit(1)


if __name__ == "__main__":
    main()
