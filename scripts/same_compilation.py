#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What scripts/test.sh needs to run a configuration's tests only where they can differ from a
run it already made.

  same_compilation.py objects TREE_A TREE_B [MAY_DIFFER_REGEX]
      Whether every object file TREE_B compiled is byte for byte TREE_A's object of the same path:
      then the code both trees' tests run is the same. Objects whose path matches the regex may
      differ (those that embed their tree's own path); their names are printed.
      Exit 0: the same; 1: not (the differing objects on stderr); 2: a tree cannot be read.
  same_compilation.py registered BEFORE_JSON AFTER_JSON
      The tests whose registration (`ctest --show-only=json-v1`: command, properties) differs
      between two configurations of one tree, or that only the second has, as a ctest -R regex
      (^(name|...)$), or nothing when every test is registered alike. Exit 2: unreadable.
  same_compilation.py selected LISTING_JSON LABEL NAME_REGEX
      The tests of a listing (`ctest --show-only=json-v1`) that carry LABEL or whose name matches
      NAME_REGEX, as a ctest -R regex (nothing when none).
"""
import hashlib
import json
import pathlib
import re
import subprocess
import sys


def object_digests(tree: pathlib.Path) -> dict:
    """The objects the tree's own build makes (ninja's targets; not CMake's compiler checks, not
    the projects tests configure inside it), by content."""
    listing = subprocess.run(["ninja", "-C", str(tree), "-t", "targets", "all"], check=True,
                             capture_output=True, text=True).stdout
    names = [line.split(":")[0] for line in listing.splitlines()]
    return {n: hashlib.sha256((tree / n).read_bytes()).hexdigest()
            for n in names if n.endswith(".o") and (tree / n).is_file()}


def objects(a_dir: str, b_dir: str, may_differ: str) -> int:
    a, b = object_digests(pathlib.Path(a_dir)), object_digests(pathlib.Path(b_dir))
    if not b:
        print(f"same_compilation: {b_dir} holds no object file", file=sys.stderr)
        return 1
    allowed = re.compile(may_differ) if may_differ else None
    differ = sorted(o for o in b if a.get(o) != b[o])
    tolerated = [o for o in differ if allowed and allowed.search(o) and o in a]
    rest = [o for o in differ if o not in tolerated]
    for o in rest[:10]:
        why = "not compiled" if o not in a else "a different object"
        print(f"same_compilation: {o}: {why} in {a_dir}", file=sys.stderr)
    if rest:
        print(f"same_compilation: {len(rest)} of {len(b)} objects differ", file=sys.stderr)
        return 1
    print(f"same_compilation: {len(b) - len(tolerated)} of {len(b)} objects of {b_dir} are "
          f"{a_dir}'s byte for byte" +
          (f"; {', '.join(tolerated)} embed their tree's path" if tolerated else ""))
    return 0


def registrations(path: str) -> dict:
    tests = json.loads(pathlib.Path(path).read_text())["tests"]
    return {t["name"]: json.dumps({k: t.get(k) for k in ("command", "properties")}, sort_keys=True)
            for t in tests}


def registered(before: str, after: str) -> int:
    old, new = registrations(before), registrations(after)
    as_regex([n for n in new if old.get(n) != new[n]])
    return 0


def as_regex(names) -> None:
    if names:
        print("^(" + "|".join(re.escape(n) for n in sorted(names)) + ")$")


def selected(listing: str, label: str, name_regex: str) -> int:
    pattern = re.compile(name_regex)
    names = []
    for t in json.loads(pathlib.Path(listing).read_text())["tests"]:
        labels = [p["value"] for p in t.get("properties", []) if p["name"] == "LABELS"]
        if label in (labels[0] if labels else []) or pattern.search(t["name"]):
            names.append(t["name"])
    as_regex(names)
    return 0


def main() -> int:
    try:
        if len(sys.argv) in (4, 5) and sys.argv[1] == "objects":
            return objects(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) == 5 else "")
        if len(sys.argv) == 4 and sys.argv[1] == "registered":
            return registered(sys.argv[2], sys.argv[3])
        if len(sys.argv) == 5 and sys.argv[1] == "selected":
            return selected(sys.argv[2], sys.argv[3], sys.argv[4])
    except (OSError, subprocess.CalledProcessError, json.JSONDecodeError, KeyError,
            re.error) as e:
        print(f"same_compilation: {e}", file=sys.stderr)
        return 2
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
