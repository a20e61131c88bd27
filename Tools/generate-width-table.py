#!/usr/bin/env python3
"""Generates Sources/LifelineTerminal/DisplayWidthTable.swift, the tables DisplayWidth measures clusters with.

The source of truth is the Unicode Character Database, never another program's table. Give the folder that holds
the UCD files of one Unicode version (the layout of unicode.org's `Public/<version>/ucd/`, which Debian's
`unicode-data` package installs as /usr/share/unicode):

    python3 Tools/generate-width-table.py /usr/share/unicode > Sources/LifelineTerminal/DisplayWidthTable.swift

or `--fetch VERSION` to download the same files from unicode.org (where it is reachable). It reads:
- EastAsianWidth.txt: W (wide) and F (fullwidth) are two columns, with UAX #11's defaults for the unassigned code
  points of the CJK blocks and of planes 2 and 3 (the `@missing` lines of newer files, the header's rule before);
- emoji/emoji-data.txt: Emoji_Presentation=Yes is two columns;
- emoji/emoji-variation-sequences.txt: the bases that VS16 (U+FE0F) turns into a two-column emoji;
- UnicodeData.txt: general categories Mn, Me and Cf take no column (and the Hangul medial vowels and final
  consonants U+1160..U+11FF, U+D7B0..U+D7FF, which join the syllable before them);
- DerivedAge.txt: a wide character first assigned in `--uncertain-since` (13.0) or later is one terminals still
  running an older table draw one column wide (or, as ncurses on glibc, minus one), so its width is uncertain.
"""

import argparse
import io
import os
import re
import sys
import urllib.request

HANGUL_JOINING = [(0x1160, 0x11FF), (0xD7B0, 0xD7FF)]
# UAX #11: "The unassigned code points in the following blocks default to W", as the header of
# EastAsianWidth.txt before Unicode 15.1 says in prose and the files since say in `@missing` lines.
UAX11_DEFAULT_WIDE = [(0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FFFD), (0x30000, 0x3FFFD)]
FILES = {
    "eaw": "EastAsianWidth.txt",
    "emoji": "emoji/emoji-data.txt",
    "variations": "emoji/emoji-variation-sequences.txt",
    "data": "UnicodeData.txt",
    "age": "DerivedAge.txt",
}


def open_source(args, name):
    if args.fetch:
        path = FILES[name]
        url = f"https://www.unicode.org/Public/{args.fetch}/ucd/{path}"
        if path.startswith("emoji/") and tuple(map(int, args.fetch.split(".")[:1])) < (13,):
            url = f"https://www.unicode.org/Public/emoji/{args.fetch}/{path[len('emoji/'):]}"
        with urllib.request.urlopen(url, timeout=60) as response:
            return io.StringIO(response.read().decode("utf-8"))
    return open(os.path.join(args.ucd, FILES[name]), encoding="utf-8")


def entries(handle):
    """(first, last, fields) for each data line of a UCD property file."""
    for line in handle:
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        fields = [field.strip() for field in data.split(";")]
        first, _, last = fields[0].partition("..")
        yield int(first, 16), int(last or first, 16), fields[1:]


def coalesce(ranges):
    merged = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


def subtract(ranges, holes):
    """The code points of `ranges` outside `holes` (both lists of inclusive ranges)."""
    points = set()
    for first, last in ranges:
        points.update(range(first, last + 1))
    for first, last in holes:
        points.difference_update(range(first, last + 1))
    return coalesce((point, point) for point in points)


def version_of(handle):
    match = re.search(r"-(\d+\.\d+\.\d+)\.txt", handle.readline())
    return match.group(1) if match else "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ucd", nargs="?", help="a folder holding the UCD files (e.g. /usr/share/unicode)")
    parser.add_argument("--fetch", metavar="VERSION", help="download the UCD files of VERSION from unicode.org")
    parser.add_argument("--uncertain-since", default="13.0", help="first Unicode version whose wide characters "
                        "are uncertain (default 13.0: glibc before 2.32 and the terminals of its era lack them)")
    args = parser.parse_args()
    if not args.ucd and not args.fetch:
        parser.error("give a UCD folder or --fetch VERSION")

    with open_source(args, "eaw") as handle:
        text = handle.read()
    version = version_of(io.StringIO(text))
    listed, wide, missing_wide = set(), [], []
    for line in text.splitlines():
        missing = re.match(r"#\s*@missing:\s*([0-9A-F]+)\.\.([0-9A-F]+)\s*;\s*(\w+)", line)
        if missing and missing.group(3) in ("W", "F"):
            missing_wide.append((int(missing.group(1), 16), int(missing.group(2), 16)))
    for first, last, fields in entries(io.StringIO(text)):
        listed.update(range(first, last + 1))
        if fields[0] in ("W", "F"):
            wide.append((first, last))
    for first, last in missing_wide or UAX11_DEFAULT_WIDE:
        wide.extend((point, point) for point in range(first, last + 1) if point not in listed)

    with open_source(args, "emoji") as handle:
        presentation = [(first, last) for first, last, fields in entries(handle) if fields[0] == "Emoji_Presentation"]
    with open_source(args, "variations") as handle:
        vs16_bases = [(first, first) for first, _, fields in entries_of_sequences(handle) if "emoji style" in fields]
    zero = list(HANGUL_JOINING)
    with open_source(args, "data") as handle:
        range_start = None
        for line in handle:
            fields = line.split(";")
            point, name, category = int(fields[0], 16), fields[1], fields[2]
            if name.endswith(", First>"):
                range_start = point
                continue
            first = range_start if name.endswith(", Last>") else point
            range_start = None
            if category in ("Mn", "Me", "Cf"):
                zero.append((first, point))

    wide_all = coalesce(wide + presentation)
    # A combining mark is never wide, even where East Asian Width says W (U+302A..U+302D, U+3099..U+309A,
    # U+16FE4): it draws on the character before it. The tables stay disjoint.
    zero = coalesce(zero)
    wide_all = subtract(wide_all, zero)

    since = tuple(int(part) for part in args.uncertain_since.split("."))
    recent = []
    with open_source(args, "age") as handle:
        for first, last, fields in entries(handle):
            if tuple(int(part) for part in fields[0].split(".")) >= since:
                recent.append((first, last))
    recent_wide = intersect(coalesce(recent), wide_all)

    out = sys.stdout
    out.write(f"// Generated by Tools/generate-width-table.py from the Unicode Character Database {version}\n")
    out.write("// (EastAsianWidth.txt, emoji-data.txt, emoji-variation-sequences.txt, UnicodeData.txt,\n")
    out.write(f"// DerivedAge.txt; uncertain since Unicode {args.uncertain_since}). Do not edit: run the script.\n\n")
    out.write("extension DisplayWidth {\n")
    out.write(f"    /// The Unicode version the tables below were generated from.\n")
    out.write(f"    public static let unicodeVersion = \"{version}\"\n")
    write_table(out, "wideRanges", wide_all,
                "Two columns: East Asian Width W or F, or Emoji_Presentation=Yes (first, last pairs, sorted).")
    write_table(out, "zeroWidthRanges", zero,
                "No column: general category Mn, Me or Cf, and the Hangul medial vowels and final consonants.")
    write_table(out, "emojiVariationBases", coalesce(vs16_bases),
                "The bases that VS16 (U+FE0F) turns into a two-column emoji presentation.")
    write_table(out, "recentWideRanges", recent_wide,
                f"Two columns, first assigned in Unicode {args.uncertain_since} or later: uncertain in older "
                "terminals.")
    out.write("}\n")


def entries_of_sequences(handle):
    for line in handle:
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        fields = [field.strip() for field in data.split(";")]
        first = int(fields[0].split()[0], 16)
        yield first, first, fields[1:]


def intersect(ranges, other):
    result = []
    for first, last in ranges:
        for o_first, o_last in other:
            low, high = max(first, o_first), min(last, o_last)
            if low <= high:
                result.append((low, high))
    return coalesce(result)


def write_table(out, name, ranges, doc):
    out.write(f"\n    /// {doc}\n")
    out.write(f"    static let {name}: [UInt32] = [\n")
    pairs = [f"0x{first:05X}, 0x{last:05X}," for first, last in ranges]
    for start in range(0, len(pairs), 6):
        out.write("        " + " ".join(pairs[start:start + 6]) + "\n")
    out.write("    ]\n")


if __name__ == "__main__":
    main()
