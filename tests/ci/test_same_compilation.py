#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""scripts/same_compilation.py, which decides what scripts/test.sh runs again in a configuration
whose compiled code is an earlier tree's: on small ninja trees and CTest listings made here.
A wrong "same" would leave a configuration's changed code untested, so each way of differing is
checked to say "not the same", and each tolerated difference to be named."""
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "same_compilation.py"


def run(*args):
    r = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True,
                       text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def make_tree(root: pathlib.Path, objects: dict) -> pathlib.Path:
    """A build tree whose build.ninja names the objects; each file holds the given bytes (None:
    named but never built)."""
    root.mkdir(parents=True)
    lines = ["rule cc", "  command = touch $out", ""]
    for name, content in objects.items():
        lines.append(f"build {name}: cc")
        if content is not None:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(content)
    lines.append("build all_tests: phony " + " ".join(objects))
    (root / "build.ninja").write_text("\n".join(lines) + "\n")
    return root


def listing(path: pathlib.Path, tests: list) -> pathlib.Path:
    """A `ctest --show-only=json-v1` listing of (name, command, labels) entries."""
    path.write_text(json.dumps({"kind": "ctestInfo", "tests": [
        {"name": n, "command": c,
         "properties": [{"name": "LABELS", "value": labels}] if labels else []}
        for n, c, labels in tests]}))
    return path


class Objects(unittest.TestCase):
    def setUp(self):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="same-compilation-"))
        self.a = make_tree(self.dir / "a", {"lib/x.cpp.o": b"x1", "lib/y.cpp.o": b"y1",
                                            "cupti_collector.cpp.o": b"path-a"})

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_identical_objects_are_the_same(self):
        b = make_tree(self.dir / "b", {"lib/x.cpp.o": b"x1", "lib/y.cpp.o": b"y1"})
        rc, out, _ = run("objects", self.a, b)
        self.assertEqual(rc, 0)
        self.assertIn("2 of 2 objects", out)

    def test_one_differing_byte_is_not_the_same(self):
        b = make_tree(self.dir / "b", {"lib/x.cpp.o": b"x1", "lib/y.cpp.o": b"y2"})
        rc, _, err = run("objects", self.a, b)
        self.assertEqual(rc, 1)
        self.assertIn("lib/y.cpp.o", err)
        self.assertNotIn("lib/x.cpp.o", err)

    def test_an_object_the_earlier_tree_never_compiled_is_not_the_same(self):
        b = make_tree(self.dir / "b", {"lib/x.cpp.o": b"x1", "lib/z.cpp.o": b"z1"})
        rc, _, err = run("objects", self.a, b)
        self.assertEqual(rc, 1)
        self.assertIn("lib/z.cpp.o: not compiled", err)

    def test_an_allowed_difference_is_named_and_tolerated(self):
        b = make_tree(self.dir / "b", {"lib/x.cpp.o": b"x1", "cupti_collector.cpp.o": b"path-b"})
        rc, out, _ = run("objects", self.a, b, r"cupti_collector\.cpp\.o$")
        self.assertEqual(rc, 0)
        self.assertIn("1 of 2 objects", out)
        self.assertIn("cupti_collector.cpp.o", out)

    def test_the_allowance_covers_only_objects_both_trees_compiled(self):
        a = make_tree(self.dir / "a2", {"lib/x.cpp.o": b"x1"})
        b = make_tree(self.dir / "b", {"lib/x.cpp.o": b"x1", "cupti_collector.cpp.o": b"p"})
        rc, _, err = run("objects", a, b, r"cupti_collector\.cpp\.o$")
        self.assertEqual(rc, 1)
        self.assertIn("cupti_collector.cpp.o: not compiled", err)

    def test_a_tree_without_objects_is_not_the_same(self):
        b = make_tree(self.dir / "b", {"lib/x.cpp.o": None})
        rc, _, err = run("objects", self.a, b)
        self.assertEqual(rc, 1)
        self.assertIn("holds no object file", err)

    def test_a_folder_without_a_build_file_is_unreadable(self):
        (self.dir / "empty").mkdir()
        rc, _, _ = run("objects", self.a, self.dir / "empty")
        self.assertEqual(rc, 2)


class Listings(unittest.TestCase):
    def setUp(self):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="same-compilation-"))

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_registered_names_changed_and_new_tests_only(self):
        before = listing(self.dir / "before.json", [("unit.a", ["a"], ["unit"]),
                                                    ("cli.b", ["perfgate", "b"], ["cli"])])
        after = listing(self.dir / "after.json", [("unit.a", ["a"], ["unit"]),
                                                  ("cli.b", ["perfgate", "b", "--x"], ["cli"]),
                                                  ("cli.c", ["perfgate", "c"], ["cli"])])
        rc, out, _ = run("registered", before, after)
        self.assertEqual(rc, 0)
        self.assertEqual(out.strip(), r"^(cli\.b|cli\.c)$")

    def test_registered_alike_prints_nothing(self):
        before = listing(self.dir / "before.json", [("unit.a", ["a"], ["unit"])])
        rc, out, _ = run("registered", before, before)
        self.assertEqual((rc, out), (0, ""))

    def test_a_changed_label_is_a_changed_registration(self):
        before = listing(self.dir / "before.json", [("unit.a", ["a"], ["unit"])])
        after = listing(self.dir / "after.json", [("unit.a", ["a"], ["unit", "cpu_timing"])])
        self.assertEqual(run("registered", before, after)[1].strip(), r"^(unit\.a)$")

    def test_selected_by_label_or_name(self):
        tests = listing(self.dir / "l.json", [("consumer.deb", ["x"], ["consumer", "cmake_project"]),
                                              ("cupti.saxpy", ["y"], ["cupti"]),
                                              ("unit.a", ["z"], ["unit"])])
        rc, out, _ = run("selected", tests, "cmake_project", r"^cupti\.")
        self.assertEqual(rc, 0)
        self.assertEqual(out.strip(), r"^(consumer\.deb|cupti\.saxpy)$")
        # A label is matched whole, never as part of another.
        self.assertEqual(run("selected", tests, "cmake", "^$")[1], "")

    def test_unreadable_listing_and_wrong_use(self):
        (self.dir / "bad.json").write_text("{")
        self.assertEqual(run("registered", self.dir / "bad.json", self.dir / "bad.json")[0], 2)
        self.assertEqual(run("sideways")[0], 2)


if __name__ == "__main__":
    if not shutil.which("ninja"):
        print("SKIPPED: no ninja on PATH (same_compilation.py lists a tree's objects with it)")
        sys.exit(77)
    unittest.main()
