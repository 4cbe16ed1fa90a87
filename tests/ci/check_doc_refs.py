#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The examples users copy pin perfgate to a ref that exists (issue 52): the GitHub action
(`uses: OWNER/perfgate@REF`), the GitLab template (`ref: REF` of an include of
OWNER/perfgate) and FetchContent (`GIT_TAG REF` in a FetchContent_Declare of perfgate), in
README.md, docs/*.md, action.yml and ci/gitlab/*.yml. REF must be the placeholder
`<full-commit-sha>` (docs/ci.md, "Pinning perfgate") or a tag the repository has; `@v0`,
`ref: v0.1.0` and `GIT_TAG v0.1.0` existed nowhere.

usage: check_doc_refs.py SOURCE_DIR            exit 0 when every pin is good, 1 naming each bad one
       check_doc_refs.py --expect-bad FILE...  exit 0 when each FILE has a bad pin (the check
                                               catches them), 1 otherwise
"""
import pathlib
import re
import subprocess
import sys

PLACEHOLDER = "<full-commit-sha>"
PINS = [
    ("action", re.compile(r"uses:\s*[\w.-]+/perfgate@(\S+)")),
    ("GitLab include", re.compile(r"project:\s*[\w./-]*perfgate\s*\n\s*ref:\s*(\S+)")),
    ("FetchContent", re.compile(r"FetchContent_Declare\(\s*perfgate\b[^)]*?\bGIT_TAG\s+(\S+)",
                                re.S)),
]


def tags(source):
    done = subprocess.run(["git", "-C", str(source), "tag", "--list"], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True)
    return set(done.stdout.split()) if done.returncode == 0 else set()


def bad_pins(path, known_tags):
    text = path.read_text(encoding="utf-8")
    bad = []
    for what, pattern in PINS:
        for match in pattern.finditer(text):
            ref = match.group(1)
            if ref != PLACEHOLDER and ref not in known_tags:
                line = text.count("\n", 0, match.start(1)) + 1
                bad.append(f"{path}:{line}: {what} pinned to '{ref}', which is neither "
                           f"{PLACEHOLDER} nor a tag of the repository")
    return bad


def files(source):
    source = pathlib.Path(source)
    return ([source / "README.md", source / "action.yml"] + sorted(source.glob("docs/*.md")) +
            sorted(source.glob("ci/gitlab/*.yml")))


def main(argv):
    if len(argv) >= 2 and argv[0] == "--expect-bad":
        missed = [f for f in argv[1:] if not bad_pins(pathlib.Path(f), set())]
        for f in missed:
            print(f"FAIL: the check found no bad pin in {f}")
        return 1 if missed else 0
    if len(argv) != 1:
        print(__doc__)
        return 2
    known, problems, pins = tags(argv[0]), [], 0
    for path in files(argv[0]):
        text = path.read_text(encoding="utf-8")
        pins += sum(len(p.findall(text)) for _, p in PINS)
        problems += bad_pins(path, known)
    for p in problems:
        print(f"FAIL: {p}")
    if not problems:
        print(f"ok: {pins} pins of perfgate in the docs, each {PLACEHOLDER} or an existing tag")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
